import { DomainRuleError } from './domainRuleError.js'

// Checks shared by the unit and market-rule modules. Internal: src/index.ts does not re-export
// this file.

export function assertNonNegative(value: bigint, what: string): void {
  if (typeof value !== 'bigint')
    throw new TypeError(
      `${what} must be a bigint in base units, got ${typeof value}: convert with the parse functions.`,
    )
  if (value < 0n)
    throw new DomainRuleError({
      code: 'NEGATIVE_AMOUNT',
      shortMessage: `${what} ${value} is negative: amounts and quantities are zero or positive.`,
      details: { value: value.toString() },
    })
}

export function assertNotRoundedToZero(
  input: bigint,
  result: bigint,
  context: { what: string; target: string },
): void {
  if (input !== 0n && result === 0n)
    throw new DomainRuleError({
      code: 'ROUNDS_TO_ZERO',
      shortMessage: `${context.what} rounds to zero in ${context.target}: use a larger value.`,
      details: { value: input.toString(), target: context.target },
    })
}

export function assertLotSize(lotSize: bigint): bigint {
  if (typeof lotSize !== 'bigint' || lotSize <= 0n)
    throw new DomainRuleError({
      code: 'BAD_LOT_SIZE',
      shortMessage: `Lot size ${String(lotSize)} is not valid: a lot size is a positive whole number of shares as a bigint (e.g. 100n; convert the ticker's lot_size with BigInt()).`,
      details: { lotSize: String(lotSize) },
    })
  return lotSize
}
