import { type TokenKind, tokenKinds } from './markets.js'

// How an amount in base units reads for a person: in messages and operator lines (guard and risk
// messages, CLI, daemon activity) and in every report (src/report/formatAmount.ts delegates here):
//
//   1. Units with at most 6 decimals (USDC, whole StockToken shares) are shown exactly.
//   2. Units with more (18-decimal assets, ShareToken quantities) are rounded half away from zero
//      to 6 fraction digits: 18 digits of noise hide the figure.
//   3. A non-zero amount never reads as "0": dust keeps 6 significant digits.
//   4. Trailing fraction zeros and a trailing "." are trimmed; a negative amount has one "-".

/** Fraction digits kept for units with more decimals than this (rule 2). */
export const keptFractionDigits = 6

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
 * An asset amount with its symbol.
 *
 * @example
 * formatAssetAmount(912_631_720n, { symbol: 'USDC', decimals: 6 }) // '912.63172 USDC'
 */
export function formatAssetAmount(value: bigint, asset: { symbol: string; decimals: number }): string {
  return `${formatTokenAmount(value, asset.decimals)} ${asset.symbol}`
}

/**
 * A stock-side quantity (StockToken: whole shares; ShareToken: 18 decimals) with its ticker.
 *
 * @example
 * formatStockQuantity(500_000_000_000_000_000n, { tokenKind: 'share', ticker: 'AAPLs' }) // '0.5 AAPLs'
 */
export function formatStockQuantity(value: bigint, token: { tokenKind: TokenKind; ticker: string }): string {
  return `${formatTokenAmount(value, tokenKinds[token.tokenKind].decimals)} ${token.ticker}`
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
