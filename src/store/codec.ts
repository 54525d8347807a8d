import { StockrouteError } from '@stockroute/client/domain/errors.js'
import type { Address, Hex } from 'viem'
import { getAddress, isAddress } from 'viem/utils'

// The repository edge: bigint ⇄ decimal TEXT, addresses and hashes in one canonical spelling, JSON
// that survives bigints. Every value crossing into SQLite goes through here, so a JS number never
// carries money and the same address is never stored in two spellings.

/** Stable codes of {@link LedgerInputError}. */
export type LedgerInputErrorCode = 'BAD_LEDGER_INPUT' | 'CORRUPT_LEDGER_VALUE'

/**
 * A value handed to a repository is not storable (negative amount, malformed hash, unsafe integer…),
 * or a stored value does not parse back. `details.field` names the field.
 *
 * @example
 * try {
 *   ledger.nonces.commitNonce(1, address, -1)
 * } catch (error) {
 *   if (error instanceof LedgerInputError) console.log(error.details.field) // 'nonce'
 * }
 */
export class LedgerInputError extends StockrouteError {
  override name = 'LedgerInputError'
  override readonly code: LedgerInputErrorCode
  constructor(
    field: string,
    value: unknown,
    problem: string,
    code: LedgerInputErrorCode = 'BAD_LEDGER_INPUT',
  ) {
    super({
      code,
      shortMessage: `${field} ${describe(value)} ${problem}`,
      remedy: ledgerInputRemedies[code],
      details: { field, value: describe(value) },
    })
    this.code = code
  }
}

const ledgerInputRemedies: Readonly<Record<LedgerInputErrorCode, string>> = {
  BAD_LEDGER_INPUT:
    'pass the value the message asks for; when stockroute itself passed it, report it as a bug, with the log',
  CORRUPT_LEDGER_VALUE:
    'the ledger holds a value stockroute does not write: restore the file from a backup, or report it with a copy of the file',
}

function describe(value: unknown): string {
  if (typeof value === 'bigint') return `${value}n`
  if (typeof value === 'string') return JSON.stringify(value)
  return String(value)
}

const unsignedText = /^(0|[1-9]\d*)$/
const signedText = /^(0|-?[1-9]\d*)$/

/**
 * A non-negative bigint as canonical decimal TEXT (no sign, no leading zeros).
 *
 * @example
 * uintToText(1_500_000n, 'amountIn') // '1500000'
 */
export function uintToText(value: bigint, field: string): string {
  if (typeof value !== 'bigint')
    throw new LedgerInputError(field, value, 'is not a bigint: amounts are bigints in base units.')
  if (value < 0n) throw new LedgerInputError(field, value, 'is negative: it must be zero or positive.')
  return value.toString()
}

/**
 * A signed bigint as canonical decimal TEXT (a leading `-` for negatives).
 *
 * @example
 * intToText(-25n, 'realizedPnl') // '-25'
 */
export function intToText(value: bigint, field: string): string {
  if (typeof value !== 'bigint')
    throw new LedgerInputError(field, value, 'is not a bigint: amounts are bigints in base units.')
  return value.toString()
}

/**
 * Parses an unsigned decimal TEXT column back into a bigint; throws `CORRUPT_LEDGER_VALUE` when the
 * column holds anything else (the schema's CHECKs make that a sign of a foreign writer).
 *
 * @example
 * textToUint('1500000', 'fills.amount_in') // 1500000n
 */
export function textToUint(text: unknown, field: string): bigint {
  if (typeof text !== 'string' || !unsignedText.test(text))
    throw new LedgerInputError(
      field,
      text,
      'is not an unsigned decimal in the ledger.',
      'CORRUPT_LEDGER_VALUE',
    )
  return BigInt(text)
}

/**
 * Parses a signed decimal TEXT column back into a bigint.
 *
 * @example
 * textToInt('-25', 'positions.realized_pnl') // -25n
 */
export function textToInt(text: unknown, field: string): bigint {
  if (typeof text !== 'string' || !signedText.test(text))
    throw new LedgerInputError(field, text, 'is not a signed decimal in the ledger.', 'CORRUPT_LEDGER_VALUE')
  return BigInt(text)
}

/**
 * Checks a JS number is a non-negative safe integer (chain ids, nonces, log indexes, timestamps).
 *
 * @example
 * safeInteger(31337, 'chainId') // 31337
 */
export function safeInteger(value: number, field: string, minimum = 0): number {
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < minimum)
    throw new LedgerInputError(field, value, `must be an integer of at least ${minimum}.`)
  return value
}

/**
 * A block number (bigint, as viem returns it) as a safe JS integer for an INTEGER column.
 *
 * @example
 * blockNumberToInteger(123n, 'blockNumber') // 123
 */
export function blockNumberToInteger(value: bigint, field: string): number {
  if (typeof value !== 'bigint' || value < 0n || value > BigInt(Number.MAX_SAFE_INTEGER))
    throw new LedgerInputError(field, value, 'must be a non-negative bigint block number.')
  return Number(value)
}

/**
 * The checksummed spelling of an address, so one address is stored one way.
 *
 * @example
 * canonicalAddress('0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266', 'from')
 * // '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
 */
export function canonicalAddress(value: string, field: string): Address {
  if (typeof value !== 'string' || !isAddress(value, { strict: false }))
    throw new LedgerInputError(field, value, 'is not a 0x address of 40 hex digits.')
  return getAddress(value)
}

/**
 * A 32-byte hex value (transaction hash, quote id) in lowercase.
 *
 * @example
 * canonicalBytes32('0xAB…', 'txHash') // '0xab…'
 */
export function canonicalBytes32(value: string, field: string): Hex {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(value))
    throw new LedgerInputError(field, value, 'is not 0x followed by 64 hex digits.')
  return value.toLowerCase() as Hex
}

/**
 * Serializes a JSON-like value whose amounts may be bigints: each bigint becomes its decimal string.
 *
 * @example
 * jsonWithBigints({ amountIn: 10n }) // '{"amountIn":"10"}'
 */
export function jsonWithBigints(value: unknown): string {
  return JSON.stringify(value, (_key, item: unknown) => (typeof item === 'bigint' ? item.toString() : item))
}

/** Multiplies `value * numerator / denominator`, rounding the magnitude up (away from zero). */
export function mulDivAwayFromZero(value: bigint, numerator: bigint, denominator: bigint): bigint {
  const negative = value < 0n
  const magnitude = (negative ? -value : value) * numerator
  const quotient = magnitude / denominator
  const rounded = quotient * denominator === magnitude ? quotient : quotient + 1n
  return negative ? -rounded : rounded
}

/** Multiplies `value * numerator / denominator`, rounding the magnitude down (toward zero). */
export function mulDivTowardZero(value: bigint, numerator: bigint, denominator: bigint): bigint {
  return (value * numerator) / denominator
}
