// THE rule every report uses to turn a base-unit amount into the decimal string a person reads.
// One place, so that every report (and its JSON/CSV) shows the same amount the same way:
//
//   1. Amounts whose unit has at most `reportFractionDigits` (6) decimals are shown EXACTLY:
//      6-decimal USDC and whole StockToken shares are never rounded.
//   2. Amounts with more decimals (18-decimal assets, ShareToken quantities, 1e8 prices) are
//      rounded half away from zero to 6 fraction digits: 1e-6 of a dollar or of a share is below
//      anything that matters in a report, and 18 digits of noise hide the figure.
//   3. A non-zero amount never reads as "0": when rule 2 would round it to zero (|x| < 0.0000005),
//      it is shown with 6 significant digits instead (0.000000012345678 → "0.0000000123457").
//   4. Trailing fraction zeros and a trailing "." are trimmed ("1234.5", "15"); negative amounts
//      carry one leading "-"; "-0" never appears.
//
// Totals are computed in base units (bigint) and formatted once, so a total can differ from the
// sum of its displayed rows by the rounding of rule 2 (never for ≤6-decimal assets).

/** Fraction digits kept for units with more decimals than this (rule 2 above). */
export const reportFractionDigits = 6

/**
 * Formats a signed amount in base units of a unit with `decimals` decimals as a report decimal
 * string, by the rule documented at the top of this file: exact up to 6 decimals, else rounded
 * half away from zero to 6 fraction digits, and never "0" for a non-zero amount.
 *
 * @example
 * formatAmount(1_234_560_000n, 6) // '1234.56'        (USDC, exact)
 * formatAmount(1_234_567_890_123_456_789n, 18) // '1.234568'   (18-decimal asset or ShareToken)
 * formatAmount(12_345_678_901n, 18) // '0.0000000123457'  (dust keeps 6 significant digits)
 * formatAmount(-15n, 0) // '-15'                    (StockToken shares)
 */
export function formatAmount(value: bigint, decimals: number): string {
  if (!Number.isInteger(decimals) || decimals < 0)
    throw new RangeError(`formatAmount needs a non-negative integer of decimals, got ${decimals}`)
  const negative = value < 0n
  const magnitude = negative ? -value : value
  const sign = negative ? '-' : ''
  if (decimals <= reportFractionDigits) return sign + fixed(magnitude, decimals)
  const drop = 10n ** BigInt(decimals - reportFractionDigits)
  const rounded = roundHalfUp(magnitude, drop)
  if (rounded !== 0n || magnitude === 0n) return sign + fixed(rounded, reportFractionDigits)
  // Dust: keep 6 significant digits of the exact value, whatever its scale.
  const digits = magnitude.toString().length
  const keep = 6
  if (digits <= keep) return sign + fixed(magnitude, decimals)
  const scale = 10n ** BigInt(digits - keep)
  return sign + fixed(roundHalfUp(magnitude, scale), decimals - (digits - keep))
}

function roundHalfUp(magnitude: bigint, divisor: bigint): bigint {
  const quotient = magnitude / divisor
  return (magnitude % divisor) * 2n >= divisor ? quotient + 1n : quotient
}

/** A non-negative integer of base units with `decimals` decimals, trailing zeros trimmed. */
function fixed(magnitude: bigint, decimals: number): string {
  if (decimals === 0) return magnitude.toString()
  const text = magnitude.toString().padStart(decimals + 1, '0')
  const whole = text.slice(0, -decimals)
  const fraction = text.slice(-decimals).replace(/0+$/, '')
  return fraction === '' ? whole : `${whole}.${fraction}`
}
