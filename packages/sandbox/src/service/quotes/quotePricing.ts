import type { MarketCode } from '@stockroute/client/domain/markets.js'
import { defaultFxRates } from '@stockroute/client/domain/quotePrice.js'
import { divideRounded } from '@stockroute/client/domain/unitConversions.js'
import {
  type AssetAmount,
  type Price,
  priceDecimals,
  type Rounding,
} from '@stockroute/client/domain/units.js'

/**
 * USD per unit of each market's currency. The service's assets are USD stablecoins while HK and KR
 * prices are in HKD and KRW; the sandbox converts at these fixed rates (a real service would use a
 * live rate), which are also the engine's default FX rates. Scaled like a Price (1e8).
 */
export const usdPerMarketCurrency: Record<MarketCode, Price> = defaultFxRates

/** The service's fee on every quote: 10 basis points of the gross notional, in the asset. */
export const quoteFeeBasisPoints = 10n

/**
 * Price of one whole share in asset base units: the market price converted to USD, rounded in the
 * house's favour (`up` on buys, `down` on sells).
 *
 * @example
 * assetPricePerShare({ marketPrice: parsePrice('418.6'), market: 'hkex', assetDecimals: 6, direction: 'up' })
 * // 53790100n (53.7901 USD)
 */
export function assetPricePerShare(parameters: {
  marketPrice: Price
  market: MarketCode
  assetDecimals: number
  direction: Rounding
}): AssetAmount {
  const { marketPrice, market, assetDecimals, direction } = parameters
  const usdScaled = marketPrice * usdPerMarketCurrency[market] // scaled by 10^(2 * priceDecimals)
  const scale = 10n ** BigInt(2 * priceDecimals)
  return divideRounded(usdScaled * 10n ** BigInt(assetDecimals), scale, direction) as AssetAmount
}

/** The fee on a gross notional, rounded up to the asset's base unit. */
export function quoteFee(gross: AssetAmount): AssetAmount {
  return divideRounded(gross * quoteFeeBasisPoints, 10_000n, 'up') as AssetAmount
}
