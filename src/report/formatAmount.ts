import { formatTokenAmount, keptFractionDigits } from '@stockroute/client/domain/formatTokenAmount.js'

// The rule every report uses to turn a base-unit amount into the decimal string a person reads is
// the one of every message and operator line (@stockroute/client, domain/formatTokenAmount.ts): exact up to 6
// decimals, else rounded half away from zero to 6 fraction digits, never "0" for a non-zero amount,
// trailing zeros trimmed. Totals are computed in base units (bigint) and formatted once, so a total
// can differ from the sum of its displayed rows by that rounding (never for ≤6-decimal assets).

/** Fraction digits kept for units with more decimals than this. */
export const reportFractionDigits = keptFractionDigits

/**
 * Formats a signed amount in base units of a unit with `decimals` decimals as a report decimal
 * string (see {@link formatTokenAmount}).
 *
 * @example
 * formatAmount(1_234_560_000n, 6) // '1234.56'        (USDC, exact)
 * formatAmount(1_234_567_890_123_456_789n, 18) // '1.234568'   (18-decimal asset or ShareToken)
 * formatAmount(12_345_678_901n, 18) // '0.0000000123457'  (dust keeps 6 significant digits)
 * formatAmount(-15n, 0) // '-15'                    (StockToken shares)
 */
export function formatAmount(value: bigint, decimals: number): string {
  return formatTokenAmount(value, decimals)
}
