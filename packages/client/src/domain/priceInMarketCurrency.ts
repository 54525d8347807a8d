import { formatTokenAmount } from './formatTokenAmount.js'
import { marketCurrencies } from './marketRules.js'
import type { MarketCode } from './markets.js'
import type { FxRates } from './quotePrice.js'
import { priceDecimals } from './units.js'

// HK and KR stocks are priced in HKD and KRW while quotes settle in a USD stablecoin: a price per
// share in the asset is shown with its market-currency value beside it, converted at the FX rate
// the engine uses (config `execution.fxRates`, else the defaults), as the fills report does.

const priceScale = 10n ** BigInt(priceDecimals)

/**
 * An asset price per whole share in the market's currency (1e8 scale, like a Price), at `fxRate`
 * (asset per unit of the currency, 1e8), rounded half away from zero.
 *
 * @example
 * assetPriceInMarketCurrency(53_790_100n, 6, 12_850_000n) // 41860000000n (418.6 HKD)
 */
export function assetPriceInMarketCurrency(
  assetPrice: bigint,
  assetDecimals: number,
  fxRate: bigint,
): bigint {
  if (fxRate <= 0n) throw new RangeError(`FX rate ${fxRate} must be positive`)
  const numerator = assetPrice * priceScale * priceScale
  const denominator = fxRate * 10n ** BigInt(assetDecimals)
  const quotient = numerator / denominator
  return (numerator % denominator) * 2n >= denominator ? quotient + 1n : quotient
}

/**
 * The local-currency reading of an asset price per share for markets not priced in USD (HK, KR),
 * e.g. `418.6 HKD`; undefined for US stocks (the asset is a USD stablecoin already).
 *
 * @example
 * localCurrencyPrice({ assetPrice: 53_790_100n, assetDecimals: 6, market: 'hkex', fxRates: defaultFxRates }) // '418.6 HKD'
 */
export function localCurrencyPrice(parameters: {
  assetPrice: bigint
  assetDecimals: number
  market: MarketCode
  fxRates: FxRates
}): string | undefined {
  const { market } = parameters
  if (market === 'usex') return undefined
  const inCurrency = assetPriceInMarketCurrency(
    parameters.assetPrice,
    parameters.assetDecimals,
    parameters.fxRates[market],
  )
  return `${formatTokenAmount(inCurrency, priceDecimals)} ${marketCurrencies[market]}`
}
