import type { MarketCode } from '@stockroute/client/domain/markets.js'
import { parsePrice } from '@stockroute/client/domain/unitStrings.js'
import { toAssetAmount } from '@stockroute/client/domain/units.js'
import { priceKey } from '../../src/strategy/priceKey.js'
import type { CashView, MarketPrice, PositionView, StrategyInput } from '../../src/strategy/types.js'

/** A market price as the daemon's cache holds it (fresh unless `stale`). */
export function marketPrice(
  market: MarketCode,
  symbol: string,
  price: string,
  options: { stale?: boolean; atMs?: number } = {},
): MarketPrice {
  return { market, symbol, price: parsePrice(price), atMs: options.atMs ?? 0, stale: options.stale ?? false }
}

/** A strategy snapshot: prices keyed by priceKey, positions and cash as given. */
export function snapshot(parameters: {
  nowMs: number
  sinceMs?: number
  prices?: readonly MarketPrice[]
  positions?: readonly PositionView[]
  cash?: readonly CashView[]
}): StrategyInput {
  const { nowMs, sinceMs, prices = [], positions = [], cash = [] } = parameters
  return {
    nowMs,
    ...(sinceMs === undefined ? {} : { sinceMs }),
    prices: new Map(prices.map((price) => [priceKey(price.market, price.symbol), price])),
    positions,
    cash,
  }
}

/** Cash of a chain: `balance` in base units of an asset with `assetDecimals` decimals. */
export function cashOf(chainId: number, assetDecimals: number, balance: bigint): CashView {
  return { chainId, assetDecimals, balance: toAssetAmount(balance) }
}
