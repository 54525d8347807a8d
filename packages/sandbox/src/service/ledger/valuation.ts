import { type ExchangeCode, marketCodes } from '@stockroute/client/domain/markets.js'
import { parsePrice } from '@stockroute/client/domain/unitStrings.js'
import { type Price, priceDecimals } from '@stockroute/client/domain/units.js'
import { formatUnits } from 'viem'
import type { CatalogueStock } from '../../catalogue.js'
import type { SandboxContext } from '../contextTypes.js'
import { usdPerMarketCurrency } from '../quotes/quotePricing.js'

// Values across chains and markets. Assets are USD stablecoins with 6 decimals on one chain and 18
// on the other, and HK and KR prices are in HKD and KRW, so every cross-chain or cross-market sum
// is made in USD natural units, converted at the same fixed rates the router quote prices with
// (quotes/quotePricing.ts), exactly (bigint at a common scale) and rendered as a decimal string.

/** Common scale of exact USD sums: 10^36 covers an 18-decimal asset times an 18-decimal token. */
export const valueScaleDecimals = 36

/** USD per unit of the exchange's currency, scaled by 10^8 like a Price. */
export function usdRateOf(exchange: ExchangeCode): Price {
  return usdPerMarketCurrency[marketCodes[exchange]]
}

/**
 * The last price of a catalogue stock in its market's currency. The price simulator is another
 * module; should it not know the stock (or fail), the catalogue's reference price stands in, so a
 * statistic never fails because of a price.
 */
export function lastPriceOf(context: SandboxContext, stock: CatalogueStock, nowMs: number): Price {
  try {
    return parsePrice(context.prices.lastPrice(stock.ticker, stock.exchange, nowMs))
  } catch {
    return parsePrice(stock.referencePrice)
  }
}

/** `amount` with `decimals` decimals rescaled to `toDecimals`, rounding down. */
export function rescale(amount: bigint, decimals: number, toDecimals: number): bigint {
  return decimals <= toDecimals
    ? amount * 10n ** BigInt(toDecimals - decimals)
    : amount / 10n ** BigInt(decimals - toDecimals)
}

/**
 * Asset notional of `quantity` token base units at `price` asset base units per whole share, in USD
 * at the common scale 10^36 (the assets are USD stablecoins).
 */
export function notionalUsdScaled(parameters: {
  price: bigint
  quantity: bigint
  assetDecimals: number
  tokenDecimals: number
}): bigint {
  const { price, quantity, assetDecimals, tokenDecimals } = parameters
  return rescale(price * quantity, assetDecimals + tokenDecimals, valueScaleDecimals)
}

/**
 * Market value in USD of `balance` token base units at a market price (in its currency), at the
 * common scale 10^36.
 */
export function marketValueUsdScaled(parameters: {
  balance: bigint
  tokenDecimals: number
  price: Price
  exchange: ExchangeCode
}): bigint {
  const { balance, tokenDecimals, price, exchange } = parameters
  const raw = balance * price * usdRateOf(exchange) // scaled by 10^(tokenDecimals + 16)
  return rescale(raw, tokenDecimals + 2 * priceDecimals, valueScaleDecimals)
}

/** An exact value at the common scale as a decimal string, no trailing zeros. */
export function formatScaled(value: bigint): string {
  return formatUnits(value, valueScaleDecimals)
}

/** A value at the common scale rounded down to `digits` decimals, always written with `digits` decimals ("1022.80"). */
export function formatScaledRounded(value: bigint, digits: number): string {
  const [whole, fraction = ''] = formatUnits(rescale(value, valueScaleDecimals, digits), digits).split('.')
  return digits === 0 ? (whole ?? '0') : `${whole}.${fraction.padEnd(digits, '0')}`
}
