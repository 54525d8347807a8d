import { assertNonNegative, assertNotRoundedToZero } from './ruleGuards.js'
import { formatAssetAmount, formatPrice, formatShareQuantity } from './unitStrings.js'
import {
  type AssetAmount,
  assetDecimalsOf,
  type Price,
  priceDecimals,
  type Rounding,
  type ShareQuantity,
  type StockQuantity,
  shareDecimals,
} from './units.js'

// Conversions between units: arithmetic with explicit rounding.

const shareScale = 10n ** BigInt(shareDecimals)

/**
 * `numerator / denominator` for non-negative operands, rounded in the given direction.
 *
 * @example
 * divideRounded(7n, 2n, 'down') // 3n
 * divideRounded(7n, 2n, 'up') // 4n
 */
export function divideRounded(numerator: bigint, denominator: bigint, direction: Rounding): bigint {
  if (numerator < 0n || denominator <= 0n)
    throw new RangeError(
      `divideRounded needs numerator >= 0 and denominator > 0, got ${numerator}/${denominator}`,
    )
  const quotient = numerator / denominator
  return direction === 'up' && quotient * denominator !== numerator ? quotient + 1n : quotient
}

/**
 * Converts an asset amount between two decimal scales (the same asset on chains with 6 and 18
 * decimals). Throws `ROUNDS_TO_ZERO` when a non-zero amount would become zero.
 *
 * @example
 * rescaleAssetAmount({ amount: toAssetAmount(1_500_000n), fromDecimals: 6, toDecimals: 18, direction: 'down' })
 * // 1500000000000000000n
 */
export function rescaleAssetAmount(parameters: {
  amount: AssetAmount
  fromDecimals: number
  toDecimals: number
  direction: Rounding
}): AssetAmount {
  const { amount, direction } = parameters
  const fromDecimals = assetDecimalsOf(parameters.fromDecimals)
  const toDecimals = assetDecimalsOf(parameters.toDecimals)
  assertNonNegative(amount, 'Asset amount')
  const result = rescaleDecimals(amount, fromDecimals, toDecimals, direction)
  assertNotRoundedToZero(amount, result, {
    what: `Asset amount ${formatAssetAmount(amount, fromDecimals)}`,
    target: `${toDecimals}-decimal base units`,
  })
  return result as AssetAmount
}

/**
 * Converts a market {@link Price} per share into asset base units per whole share, assuming the
 * asset is denominated in the market's currency (no FX here). Throws `ROUNDS_TO_ZERO` when a
 * non-zero price is below one base unit of the asset in the chosen direction.
 *
 * @example
 * priceToAssetAmount({ price: parsePrice('418.6'), assetDecimals: 6, direction: 'up' }) // 418600000n
 */
export function priceToAssetAmount(parameters: {
  price: Price
  assetDecimals: number
  direction: Rounding
}): AssetAmount {
  const { price, direction } = parameters
  const assetDecimals = assetDecimalsOf(parameters.assetDecimals)
  assertNonNegative(price, 'Price')
  const result = rescaleDecimals(price, priceDecimals, assetDecimals, direction)
  assertNotRoundedToZero(price, result, {
    what: `Price ${formatPrice(price)}`,
    target: `base units of a ${assetDecimals}-decimal asset`,
  })
  return result as AssetAmount
}

/**
 * Whole StockToken shares as 18-decimal ShareToken units (exact).
 *
 * @example
 * stockToShareQuantity(toStockQuantity(2n)) // 2000000000000000000n
 */
export function stockToShareQuantity(quantity: StockQuantity): ShareQuantity {
  assertNonNegative(quantity, 'Stock quantity')
  return (quantity * shareScale) as ShareQuantity
}

/**
 * ShareToken units as whole StockToken shares, rounded in the given direction. Throws
 * `ROUNDS_TO_ZERO` when a non-zero quantity would become zero shares.
 *
 * @example
 * shareToStockQuantity(parseShareQuantity('2.5'), 'down') // 2n
 */
export function shareToStockQuantity(quantity: ShareQuantity, direction: Rounding): StockQuantity {
  assertNonNegative(quantity, 'Share quantity')
  const result = divideRounded(quantity, shareScale, direction)
  assertNotRoundedToZero(quantity, result, {
    what: `Share quantity ${formatShareQuantity(quantity)}`,
    target: 'whole shares',
  })
  return result as StockQuantity
}

/**
 * The exact cost of whole shares at a price in asset base units per share.
 *
 * @example
 * assetAmountForStock({ quantity: toStockQuantity(100n), pricePerShareInAsset: toAssetAmount(418_600_000n) })
 * // 41860000000n
 */
export function assetAmountForStock(parameters: {
  quantity: StockQuantity
  pricePerShareInAsset: AssetAmount
}): AssetAmount {
  const { quantity, pricePerShareInAsset } = parameters
  assertNonNegative(quantity, 'Stock quantity')
  assertNonNegative(pricePerShareInAsset, 'Price per share')
  return (quantity * pricePerShareInAsset) as AssetAmount
}

/**
 * The cost of a ShareToken quantity at a price in asset base units per whole share, rounded to
 * the asset's base unit in the given direction. Throws `ROUNDS_TO_ZERO` when a non-zero cost
 * would become zero.
 *
 * @example
 * assetAmountForShares({
 *   quantity: parseShareQuantity('0.5'),
 *   pricePerShareInAsset: toAssetAmount(3n),
 *   direction: 'up',
 * }) // 2n (1.5 rounded up)
 */
export function assetAmountForShares(parameters: {
  quantity: ShareQuantity
  pricePerShareInAsset: AssetAmount
  direction: Rounding
}): AssetAmount {
  const { quantity, pricePerShareInAsset, direction } = parameters
  assertNonNegative(quantity, 'Share quantity')
  assertNonNegative(pricePerShareInAsset, 'Price per share')
  const exact = quantity * pricePerShareInAsset
  const result = divideRounded(exact, shareScale, direction)
  assertNotRoundedToZero(exact, result, {
    what: `The cost of ${formatShareQuantity(quantity)} shares`,
    target: 'asset base units',
  })
  return result as AssetAmount
}

/** `value` from `fromDecimals` to `toDecimals` fixed point: exact upwards, rounded `direction` downwards. */
function rescaleDecimals(
  value: bigint,
  fromDecimals: number,
  toDecimals: number,
  direction: Rounding,
): bigint {
  return toDecimals >= fromDecimals
    ? value * 10n ** BigInt(toDecimals - fromDecimals)
    : divideRounded(value, 10n ** BigInt(fromDecimals - toDecimals), direction)
}
