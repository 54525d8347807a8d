import type { ExchangeCode, MarketCode, TokenKind } from '@stockroute/client/domain/markets.js'
import type { AssetAmount, Price } from '@stockroute/client/domain/units.js'

// The strategies' view of the world. A strategy is a pure function of a snapshot (prices,
// positions, cash, time) that returns intents; the daemon builds the snapshot on every
// market-data tick and submits what comes back to the engine, which executes each intent id at
// most once. Strategies therefore derive their intent ids deterministically from their decision.

/** A stock on a market-data endpoint: the market and the stock's ticker there (no ShareToken `s`). */
export type MarketSymbol = {
  readonly market: MarketCode
  readonly symbol: string
}

/** The latest market price of a stock, as the daemon's price cache holds it. */
export type MarketPrice = {
  readonly symbol: string
  readonly market: MarketCode
  /** Price per share in the market's currency (USD, HKD, KRW), scaled by 1e8. */
  readonly price: Price
  /** When the price was observed, epoch ms. */
  readonly atMs: number
  /** True when the cache considers the price too old to trade on; strategies never act on it. */
  readonly stale: boolean
}

/** A holding of one token on one chain. */
export type PositionView = {
  readonly chainId: number
  /** StockToken ticker, or ShareToken ticker with the `s` suffix. */
  readonly ticker: string
  readonly exchange: ExchangeCode
  readonly tokenKind: TokenKind
  /** Token base units: whole shares for a StockToken, 1e18 units per share for a ShareToken. */
  readonly balance: bigint
  /** The ticker's board lot in shares (1 for US and KR). */
  readonly lotSize: bigint
}

/** The payment asset held on one chain. */
export type CashView = {
  readonly chainId: number
  /** The asset's ERC-20 decimals on this chain (6 or 18 in practice). */
  readonly assetDecimals: number
  readonly balance: AssetAmount
}

/**
 * What a strategy sees on one evaluation. `prices` is keyed by `priceKey(market, symbol)`.
 * `sinceMs` is the time of the previous evaluation (the daemon passes its previous tick time); a
 * schedule trades the fire times in `(sinceMs, nowMs]`, and without it looks back 60 seconds.
 */
export type StrategyInput = {
  readonly nowMs: number
  readonly sinceMs?: number | undefined
  readonly prices: ReadonlyMap<string, MarketPrice>
  readonly positions: readonly PositionView[]
  readonly cash: readonly CashView[]
}

/**
 * One trade a strategy asks for. Structurally the engine's `SwapIntent` (src/engine/intent.ts),
 * re-declared here because strategies may import only the domain; a value of this type is
 * assignable to `SwapIntent`.
 */
export type StrategyIntent = {
  /** Deterministic: the same decision on a later evaluation yields the same id. */
  intentId: string
  chainId: number
  /** StockToken ticker, or ShareToken ticker with the `s` suffix. */
  ticker: string
  exchange: ExchangeCode
  side: 'buy' | 'sell'
  /** Natural units: the asset to spend on a stablecoin buy, else the share quantity. */
  amountIn: string
  /** Buys only: `stablecoin` (default) or `stocktoken`. A sell is always `stocktoken`. */
  amountType?: 'stablecoin' | 'stocktoken' | undefined
  /** Worst acceptable price per share in the market's currency, 1e8-scaled, on the tick grid. */
  limitPrice?: Price | undefined
}

/** The strategy kinds a configuration can choose. */
export type StrategyKind = 'limit' | 'schedule' | 'rebalance'

/** A configured strategy: evaluate it on every tick; `symbols()` lists the prices it needs. */
export type Strategy = {
  readonly id: string
  readonly kind: StrategyKind
  /** Pure: the same input always gives the same intents (same ids, same amounts). */
  evaluate(input: StrategyInput): StrategyIntent[]
  /** The market prices `evaluate` reads (the daemon subscribes to them). */
  symbols(): MarketSymbol[]
}
