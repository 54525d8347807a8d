import { priceDecimals, shareDecimals } from './units.js'

// The exact arithmetic of the fills report, in bigints: prices per share and slippage in basis
// points, each rounded once, half away from zero, at the end.

const priceScale = 10n ** BigInt(priceDecimals)

/** One fill's amounts as the fills report needs them (base units). */
export type FillAmounts = {
  isBuy: boolean
  tokenKind: 'stock' | 'share'
  assetDecimals: number
  /** Asset paid (buy) or received (sell). */
  assetAmount: bigint
  /** Shares received (buy) or paid (sell), in the token's base units. */
  stockAmount: bigint
}

/**
 * `numerator / denominator` rounded half away from zero; the denominator must be positive.
 *
 * @example
 * divideHalfAway(-5n, 2n) // -3n
 */
export function divideHalfAway(numerator: bigint, denominator: bigint): bigint {
  if (denominator <= 0n) throw new RangeError(`denominator ${denominator} must be positive`)
  const negative = numerator < 0n
  const magnitude = negative ? -numerator : numerator
  const quotient = magnitude / denominator
  const rounded = (magnitude % denominator) * 2n >= denominator ? quotient + 1n : quotient
  return negative ? -rounded : rounded
}

/** The stock side's base units per whole share. */
function tokenScaleOf(tokenKind: 'stock' | 'share'): bigint {
  return tokenKind === 'share' ? 10n ** BigInt(shareDecimals) : 1n
}

/**
 * The fill's price per whole share in asset base units (the asset side, fee included on a buy and
 * net of it on a sell, over the quantity), rounded half away from zero.
 *
 * @example
 * fillPricePerShare({ isBuy: true, tokenKind: 'stock', assetDecimals: 6, assetAmount: 1_001_000n, stockAmount: 2n }) // 500500n
 */
export function fillPricePerShare(fill: FillAmounts): bigint {
  if (fill.stockAmount <= 0n) throw new RangeError('a fill of zero shares has no price')
  return divideHalfAway(fill.assetAmount * tokenScaleOf(fill.tokenKind), fill.stockAmount)
}

/**
 * The fill's price per whole share in the market's currency, scaled 1e8 like a Price: the asset
 * price divided by `fxRate` (asset per unit of the market's currency, scaled 1e8).
 *
 * @example
 * fillPriceInMarketCurrency({ isBuy: true, tokenKind: 'stock', assetDecimals: 6, assetAmount: 53_790_100n, stockAmount: 1n }, 12_850_000n)
 * // 41860000000n (418.6 HKD)
 */
export function fillPriceInMarketCurrency(fill: FillAmounts, fxRate: bigint): bigint {
  if (fill.stockAmount <= 0n) throw new RangeError('a fill of zero shares has no price')
  return divideHalfAway(
    fill.assetAmount * tokenScaleOf(fill.tokenKind) * priceScale * priceScale,
    fill.stockAmount * fxRate * 10n ** BigInt(fill.assetDecimals),
  )
}

/**
 * Slippage of a fill against its quote, in hundredths of a basis point: how much less the fill
 * delivered than the quote's `amountOut`, over it (positive: less than quoted, worse).
 *
 * @example
 * slippageVsQuoteCentiBps({ filledOut: 99n, quotedOut: 100n }) // 10000n (100 bps)
 */
export function slippageVsQuoteCentiBps(amounts: { filledOut: bigint; quotedOut: bigint }): bigint {
  if (amounts.quotedOut <= 0n) throw new RangeError('a quote of zero out has no slippage')
  return divideHalfAway((amounts.quotedOut - amounts.filledOut) * 1_000_000n, amounts.quotedOut)
}

/**
 * Slippage of a fill against the market price when its intent was made, in hundredths of a basis
 * point of that price: the fill's price per share in the market's currency (converted at `fxRate`)
 * above the market price on a buy, below it on a sell (positive: worse than the market).
 *
 * @example
 * // 1 share bought for 101 USDC against a market price of 100 USD: 100 bps worse
 * slippageVsMarketCentiBps({ isBuy: true, tokenKind: 'stock', assetDecimals: 6, assetAmount: 101_000_000n, stockAmount: 1n }, 10_000_000_000n, 100_000_000n)
 * // 10000n
 */
export function slippageVsMarketCentiBps(fill: FillAmounts, marketPrice: bigint, fxRate: bigint): bigint {
  if (fill.stockAmount <= 0n || marketPrice <= 0n || fxRate <= 0n)
    throw new RangeError('slippage needs a positive quantity, market price and FX rate')
  // fill price (1e8 units) = A·T·1e16 / (Q·fx·10^d); ratio to the market price mp, minus one.
  const filled = fill.assetAmount * tokenScaleOf(fill.tokenKind) * priceScale * priceScale
  const reference = fill.stockAmount * fxRate * 10n ** BigInt(fill.assetDecimals) * marketPrice
  const distance = fill.isBuy ? filled - reference : reference - filled
  return divideHalfAway(distance * 1_000_000n, reference)
}

/**
 * Hundredths of a basis point as a report decimal string of basis points.
 *
 * @example
 * formatCentiBps(-1250n) // '-12.5'
 */
export function formatCentiBps(centiBps: bigint): string {
  const negative = centiBps < 0n
  const magnitude = negative ? -centiBps : centiBps
  const fraction = (magnitude % 100n).toString().padStart(2, '0').replace(/0+$/, '')
  const text = fraction === '' ? `${magnitude / 100n}` : `${magnitude / 100n}.${fraction}`
  return negative ? `-${text}` : text
}
