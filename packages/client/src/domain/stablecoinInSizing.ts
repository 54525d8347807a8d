import { DomainRuleError } from './domainRuleError.js'
import { assertLotSize } from './ruleGuards.js'
import { assetAmountForShares, divideRounded } from './unitConversions.js'
import { formatAssetAmount } from './unitStrings.js'
import {
  type AssetAmount,
  assetDecimalsOf,
  type ShareQuantity,
  type StockQuantity,
  shareDecimals,
} from './units.js'

// Stablecoin-in sizing (router quote rule 3): the quantity an asset amount buys, and what it costs.

/** Inputs of the stablecoin-in conversions. */
export type StablecoinInParameters = {
  /** The asset amount offered, in base units. */
  assetAmount: AssetAmount
  /** The asset's decimals on this chain (for validation and messages). */
  assetDecimals: number
  /** Price of one whole share in asset base units. */
  pricePerShareInAsset: AssetAmount
}

/**
 * HK stablecoin-in rounding (router quote rule 3): buys as many whole lots as `assetAmount`
 * pays for; the unused rest is not charged. `amountUsed = quantity * pricePerShareInAsset` is
 * exact and never above `assetAmount`, and what is left is less than one lot's cost. Throws
 * `BELOW_ONE_LOT` when the amount does not cover one lot (no quote is returned then). Fees are
 * not part of this computation.
 *
 * @example
 * quantityForStablecoinIn({
 *   assetAmount: parseAssetAmount('100000', 6),
 *   assetDecimals: 6,
 *   pricePerShareInAsset: parseAssetAmount('418.6', 6),
 *   lotSize: 100n,
 * }) // { quantity: 200n, amountUsed: 83720000000n } (83,720)
 */
export function quantityForStablecoinIn(parameters: StablecoinInParameters & { lotSize: bigint }): {
  quantity: StockQuantity
  amountUsed: AssetAmount
} {
  const { assetAmount, pricePerShareInAsset } = parameters
  const assetDecimals = assetDecimalsOf(parameters.assetDecimals)
  const lotSize = assertLotSize(parameters.lotSize)
  assertStablecoinInputs(parameters)
  const lotCost = pricePerShareInAsset * lotSize
  const lots = assetAmount / lotCost
  if (lots === 0n)
    throw new DomainRuleError({
      code: 'BELOW_ONE_LOT',
      shortMessage: `Asset amount ${formatAssetAmount(assetAmount, assetDecimals)} does not cover one lot: ${lotSize} shares at ${formatAssetAmount(pricePerShareInAsset, assetDecimals)} cost ${formatAssetAmount(lotCost as AssetAmount, assetDecimals)}. Offer at least that amount.`,
      details: {
        assetAmount: assetAmount.toString(),
        lotSize: lotSize.toString(),
        lotCost: lotCost.toString(),
        assetDecimals,
      },
    })
  const quantity = lots * lotSize
  return { quantity: quantity as StockQuantity, amountUsed: (quantity * pricePerShareInAsset) as AssetAmount }
}

/**
 * Stablecoin-in for a ShareToken (fractional buy): the largest 18-decimal quantity whose exact
 * cost fits in `assetAmount` (rounded down), and `amountUsed`, that cost rounded UP to the asset's
 * base unit. Rounding the cost up means the buyer never pays less than the value received; it
 * still never exceeds `assetAmount`, because `quantity <= assetAmount * 10^18 / price` gives an
 * exact cost `<= assetAmount`, and rounding up an amount that is at most an integer stays at most
 * that integer. Consequences: `amountUsed` exceeds the exact cost by less than one base unit, and
 * what is left is less than the cost of one ShareToken unit (price / 10^18; for a 6-decimal asset
 * and any price below 10^18 base units, nothing is left). Throws `ROUNDS_TO_ZERO` when the amount
 * buys no ShareToken unit at all.
 *
 * @example
 * shareQuantityForStablecoinIn({
 *   assetAmount: parseAssetAmount('100', 6),
 *   assetDecimals: 6,
 *   pricePerShareInAsset: parseAssetAmount('400', 6),
 * }) // { quantity: 250000000000000000n (0.25), amountUsed: 100000000n }
 */
export function shareQuantityForStablecoinIn(parameters: StablecoinInParameters): {
  quantity: ShareQuantity
  amountUsed: AssetAmount
} {
  const { assetAmount, pricePerShareInAsset } = parameters
  const assetDecimals = assetDecimalsOf(parameters.assetDecimals)
  assertStablecoinInputs(parameters)
  const quantity = divideRounded(assetAmount * 10n ** BigInt(shareDecimals), pricePerShareInAsset, 'down')
  if (quantity === 0n)
    throw new DomainRuleError({
      code: 'ROUNDS_TO_ZERO',
      shortMessage: `Asset amount ${formatAssetAmount(assetAmount, assetDecimals)} buys no ShareToken unit at ${formatAssetAmount(pricePerShareInAsset, assetDecimals)} per share: offer a larger amount.`,
      details: {
        assetAmount: assetAmount.toString(),
        pricePerShareInAsset: pricePerShareInAsset.toString(),
        assetDecimals,
      },
    })
  const shareQuantity = quantity as ShareQuantity
  const amountUsed = assetAmountForShares({ quantity: shareQuantity, pricePerShareInAsset, direction: 'up' })
  return { quantity: shareQuantity, amountUsed }
}

function assertStablecoinInputs(parameters: StablecoinInParameters): void {
  const { assetAmount, pricePerShareInAsset } = parameters
  if (assetAmount < 0n)
    throw new DomainRuleError({
      code: 'NEGATIVE_AMOUNT',
      shortMessage: `Asset amount ${assetAmount} is negative: offer a positive amount.`,
      details: { assetAmount: assetAmount.toString() },
    })
  if (pricePerShareInAsset <= 0n)
    throw new DomainRuleError({
      code: 'PRICE_OUT_OF_RANGE',
      shortMessage: `Price per share ${pricePerShareInAsset} (asset base units) is not positive: pass the share price in the asset's base units.`,
      details: { pricePerShareInAsset: pricePerShareInAsset.toString() },
    })
}
