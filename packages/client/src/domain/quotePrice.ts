import { DomainRuleError } from './domainRuleError.js'
import type { MarketCode, TokenKind } from './markets.js'
import { divideRounded } from './unitConversions.js'
import { parsePrice } from './unitStrings.js'
import { type AssetAmount, type Price, priceDecimals, type Rounding, shareDecimals } from './units.js'

// Prices of router quotes. A quote settles in a USD stablecoin while HK and KR prices are quoted
// in HKD and KRW, so comparing a quote with a limit or a market price needs an FX rate: asset
// units per unit of the market's currency. The reference gives none; the engine takes them from
// its configuration, and these defaults are the sandbox's fixed rates.

/** Asset (USD stablecoin) per one unit of each market's currency, scaled like a {@link Price} (1e8). */
export type FxRates = Readonly<Record<MarketCode, Price>>

/** The sandbox's rates: USD 1, HKD 0.1285, KRW 0.00072 (docs/sandbox.md, "Router quote"). */
export const defaultFxRates: FxRates = {
  usex: parsePrice('1'),
  hkex: parsePrice('0.1285'),
  krex: parsePrice('0.00072'),
}

const priceScale = 10n ** BigInt(priceDecimals)

/**
 * A market price (market currency per share) in asset base units per whole share, converted at
 * `fxRate`, rounded in `direction`.
 *
 * @example
 * marketPriceInAsset({ price: parsePrice('418.6'), fxRate: parsePrice('0.1285'), assetDecimals: 6, direction: 'down' })
 * // 53790100n (53.7901)
 */
export function marketPriceInAsset(parameters: {
  price: Price
  fxRate: Price
  assetDecimals: number
  direction: Rounding
}): AssetAmount {
  const { price, fxRate, assetDecimals, direction } = parameters
  if (fxRate <= 0n)
    throw new DomainRuleError({
      code: 'PRICE_OUT_OF_RANGE',
      shortMessage: `FX rate ${fxRate} is not positive: configure the asset units per unit of the market's currency (e.g. 0.1285 for HKD).`,
      details: { fxRate: fxRate.toString() },
    })
  return divideRounded(
    price * fxRate * 10n ** BigInt(assetDecimals),
    priceScale * priceScale,
    direction,
  ) as AssetAmount
}

/**
 * What one whole share costs (buy) or fetches (sell) in a quote, from the signed amounts: the asset
 * side (paid fee included, or received net of the fee) over the stock side. ShareToken quantities
 * are 1e18 units per share. Throws `ROUNDS_TO_ZERO` for a zero quantity.
 *
 * @example
 * effectivePricePerShare({ assetAmount: 1_001_000n, stockAmount: 2n, tokenKind: 'stock', direction: 'up' }) // 500500n
 */
export function effectivePricePerShare(parameters: {
  assetAmount: AssetAmount
  stockAmount: bigint
  tokenKind: TokenKind
  direction: Rounding
}): AssetAmount {
  const { assetAmount, stockAmount, tokenKind, direction } = parameters
  if (stockAmount <= 0n)
    throw new DomainRuleError({
      code: 'ROUNDS_TO_ZERO',
      shortMessage: `A quote for ${stockAmount} shares has no price: the stock side must be positive.`,
      details: { stockAmount: stockAmount.toString() },
    })
  const scaled = tokenKind === 'share' ? assetAmount * 10n ** BigInt(shareDecimals) : assetAmount
  return divideRounded(scaled, stockAmount, direction) as AssetAmount
}

/**
 * The distance between two positive amounts in basis points of `reference`, rounded up.
 *
 * @example
 * deviationBps(1_010n, 1_000n) // 100n
 */
export function deviationBps(value: bigint, reference: bigint): bigint {
  if (reference <= 0n) throw new RangeError(`reference ${reference} must be positive`)
  const distance = value > reference ? value - reference : reference - value
  return divideRounded(distance * 10_000n, reference, 'up')
}
