// The error of the unit and market rules (units, tick, lot and quantity rules, spread tables).

/** Stable codes of {@link DomainRuleError}. */
export type DomainRuleErrorCode =
  | 'BAD_DECIMAL'
  | 'BAD_DECIMALS'
  | 'NEGATIVE_AMOUNT'
  | 'ROUNDS_TO_ZERO'
  | 'FRACTIONAL_SHARES'
  | 'BAD_LOT_SIZE'
  | 'NOT_LOT_MULTIPLE'
  | 'BELOW_ONE_LOT'
  | 'OFF_TICK'
  | 'PRICE_OUT_OF_RANGE'
  | 'UNKNOWN_SPREAD_TABLE'
  | 'BAD_SPREAD_TABLE'

/** Structured context of a {@link DomainRuleError}: plain JSON values (amounts as decimal strings). */
export type DomainRuleErrorDetails = Readonly<Record<string, string | number | boolean | null>>

/**
 * A value broke a unit or market rule. `code` is stable (switch on it), `shortMessage` says what
 * was wrong and how to fix it, `details` carries the values involved as JSON-safe data.
 *
 * @example
 * try {
 *   parsePrice('1e3')
 * } catch (error) {
 *   if (error instanceof DomainRuleError && error.code === 'BAD_DECIMAL') console.log(error.shortMessage)
 * }
 */
export class DomainRuleError extends Error {
  override name = 'DomainRuleError'
  readonly code: DomainRuleErrorCode
  readonly shortMessage: string
  readonly details: DomainRuleErrorDetails

  constructor(parameters: {
    code: DomainRuleErrorCode
    shortMessage: string
    details?: DomainRuleErrorDetails
    cause?: unknown
  }) {
    const { code, shortMessage, details = {}, cause } = parameters
    super(shortMessage, cause === undefined ? undefined : { cause })
    this.code = code
    this.shortMessage = shortMessage
    this.details = details
  }
}
