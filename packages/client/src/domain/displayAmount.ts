// How an amount reads for a person, wherever it is shown: messages and operator lines (guard and
// risk messages, CLI, daemon activity), every report (src/report/formatAmount.ts) and the browser
// dashboard (src/dashboard/static):
//
//   1. Units with at most 6 decimals (USDC, whole StockToken shares) are shown exactly.
//   2. Units with more (18-decimal assets, ShareToken quantities) are rounded half away from zero
//      to 6 fraction digits: 18 digits of noise hide the figure.
//   3. A non-zero amount never reads as "0": dust keeps 6 significant digits.
//   4. Trailing fraction zeros and a trailing "." are trimmed; a negative amount has one "-".
//
// This module imports nothing: the daemon serves its build to the dashboard as it is
// (/dashboard/vendor/displayAmount.js), so the browser rounds by this one implementation.

/** Fraction digits kept for units with more decimals than this (rule 2). */
export const keptFractionDigits = 6

/** A decimal string as the API writes amounts: optional "-", digits, optional fraction. */
const decimalPattern = /^(-?)(\d+)(?:\.(\d+))?$/

/**
 * A signed amount of base units of a unit with `decimals` decimals, as a decimal a person reads.
 *
 * @example
 * formatTokenAmount(912_631_720n, 6) // '912.63172'
 * formatTokenAmount(500_000_000_000_000_000n, 18) // '0.5'
 * formatTokenAmount(226_753_020_123_456_789_000n, 18) // '226.75302'
 */
export function formatTokenAmount(value: bigint, decimals: number): string {
  if (!Number.isInteger(decimals) || decimals < 0)
    throw new RangeError(`formatTokenAmount needs a non-negative integer of decimals, got ${decimals}`)
  const magnitude = value < 0n ? -value : value
  const sign = value < 0n ? '-' : ''
  if (decimals <= keptFractionDigits) return sign + fixed(magnitude, decimals)
  const drop = 10n ** BigInt(decimals - keptFractionDigits)
  const rounded = roundHalfUp(magnitude, drop)
  if (rounded !== 0n || magnitude === 0n) return sign + fixed(rounded, keptFractionDigits)
  const digits = magnitude.toString().length
  if (digits <= keptFractionDigits) return sign + fixed(magnitude, decimals)
  const scale = 10n ** BigInt(digits - keptFractionDigits)
  return sign + fixed(roundHalfUp(magnitude, scale), decimals - (digits - keptFractionDigits))
}

/**
 * An amount already in natural units, as the API's JSON carries it exactly (viem's `formatUnits`:
 * '39.978310249750249751'), rounded for a person by the rule of {@link formatTokenAmount}: its
 * fraction digits count as the unit's decimals, so it reads as the base-unit amount would. Throws a
 * RangeError for a text that is not a plain decimal (no exponent, no spaces, no "+").
 *
 * @example
 * formatDecimalForDisplay('39.978310249750249751') // '39.97831'
 * formatDecimalForDisplay('40018.288559999999999445') // '40018.28856'
 * formatDecimalForDisplay('0.000000012345678901') // '0.0000000123457'
 * formatDecimalForDisplay('-1.50') // '-1.5'
 */
export function formatDecimalForDisplay(text: string): string {
  const parts = decimalPattern.exec(text)
  if (!parts)
    throw new RangeError(`formatDecimalForDisplay needs a plain decimal string, got ${JSON.stringify(text)}`)
  const [, sign = '', whole = '0', fraction = ''] = parts
  const magnitude = BigInt(whole + fraction)
  return formatTokenAmount(sign === '-' ? -magnitude : magnitude, fraction.length)
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
