// The error of the unit and market rules (units, tick, lot and quantity rules, spread tables).

import { StockrouteError } from './errors.js'

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
 * A value broke a unit or market rule: a {@link StockrouteError} whose `code` is stable (switch on
 * it), whose `shortMessage` says what was wrong and how to fix it, and whose `details` carry the
 * values involved as JSON-safe data.
 *
 * @example
 * try {
 *   parsePrice('1e3')
 * } catch (error) {
 *   if (error instanceof DomainRuleError && error.code === 'BAD_DECIMAL') console.log(error.shortMessage)
 * }
 */
export class DomainRuleError extends StockrouteError {
  override name = 'DomainRuleError'
  declare readonly code: DomainRuleErrorCode
  declare readonly details: DomainRuleErrorDetails

  constructor(parameters: {
    code: DomainRuleErrorCode
    shortMessage: string
    /** What to do, when `shortMessage` does not say it (most of them do: "…: use 100 or 200 shares"). */
    remedy?: string | undefined
    details?: DomainRuleErrorDetails
    cause?: unknown
  }) {
    const { code, shortMessage, remedy, details = {}, cause } = parameters
    super({ code, shortMessage, remedy, details, cause })
  }
}
