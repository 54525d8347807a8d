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
  /**
   * Average cost: asset base units per whole share (fees included), from the ledger; absent or 0
   * when unknown. The daemon gives it for the positions a stateful strategy watches.
   */
  readonly averageCost?: AssetAmount | undefined
  /** Decimals of the asset `averageCost` is in (the chain's payment asset). */
  readonly assetDecimals?: number | undefined
  /**
   * The position's epoch: the ledger sequence number of the step (fill, transfer) that last opened it
   * from flat; it changes only when the position is closed and opened again. Given for watched
   * positions that are long.
   */
  readonly openedSeq?: number | undefined
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
  /**
   * The tokens the chains list (their token lists), when the daemon has read them; absent when not
   * known. A TWAP reads its board lot here, and whether the chain lists the ShareToken its
   * remainder would trade.
   */
  readonly listings?: readonly ListingView[] | undefined
  /**
   * What a stateful strategy ({@link StatefulStrategy}) remembered after its previous evaluation:
   * the daemon reads it from the ledger for that strategy alone and writes back the memory its
   * `decide` returns, before it submits the intents. Absent: nothing remembered.
   */
  readonly memory?: StrategyMemory | undefined
  /**
   * Of the intents a stateful strategy remembered asking for, those whose execution ended without a
   * trade (failed, expired or rejected), read from the ledger by the daemon. A protective exit whose
   * sale ended so asks for it again, under a new intent id. Absent: none known.
   */
  readonly unfilledIntents?: ReadonlySet<string> | undefined
}

/** The protective exits a `protect` strategy knows (src/strategy/protect.ts). */
export type ProtectiveTrigger = 'stop-loss' | 'take-profit' | 'trailing-stop'

/**
 * A protective exit that fired: its sale is asked for (same intent, same amount) until the position
 * closes; again under the next attempt's id when a sale ended without a trade.
 */
export type ProtectiveExit = {
  readonly trigger: ProtectiveTrigger
  /**
   * `protect:<id>:<trigger>:<epoch>` for the first attempt, `…:<epoch>:<attempt>` from the second:
   * the engine executes each at most once.
   */
  readonly intentId: string
  /** The fresh market price that tripped it (market currency, 1e8). */
  readonly price: Price
  /** Token base units to sell. */
  readonly quantity: bigint
  /** The position's balance when it fired: no other exit fires while the balance is still this. */
  readonly balance: bigint
  /** When its current attempt was asked for: when it fired, then when its sale was asked for again. */
  readonly atMs: number
}

/** What a `protect` strategy remembers of one position between evaluations (kept in the ledger). */
export type ProtectiveMemory = {
  readonly chainId: number
  readonly ticker: string
  /** The position's epoch ({@link PositionView.openedSeq}) this memory belongs to. */
  readonly epoch: number
  /** The highest fresh market price seen since the position opened (market currency, 1e8), if any. */
  readonly highWater?: { readonly price: Price; readonly atMs: number } | undefined
  /** The exits that fired in this epoch. */
  readonly exits: readonly ProtectiveExit[]
}

/** What stateful strategies remember between evaluations, one entry per watched position. */
export type StrategyMemory = {
  readonly protective: readonly ProtectiveMemory[]
}

/** A stateful strategy's answer: the intents, and what to remember for the next evaluation. */
export type StrategyDecision = {
  intents: StrategyIntent[]
  memory: StrategyMemory
}

/** A position a strategy watches: the daemon gives its average cost and epoch in the snapshot. */
export type WatchedPosition = {
  readonly chainId: number
  readonly ticker: string
  readonly exchange: ExchangeCode
}

/** A token a chain lists, as its token list shows it. */
export type ListingView = {
  readonly chainId: number
  /** StockToken ticker, or ShareToken ticker with the `s` suffix. */
  readonly ticker: string
  readonly exchange: ExchangeCode
  readonly tokenKind: TokenKind
  /** The ticker's board lot in whole shares. */
  readonly lotSize: bigint
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
export type StrategyKind = 'limit' | 'schedule' | 'rebalance' | 'twap' | 'protect'

/** A configured strategy: evaluate it on every tick; `symbols()` lists the prices it needs. */
export type Strategy = {
  readonly id: string
  readonly kind: StrategyKind
  /** Pure: the same input always gives the same intents (same ids, same amounts). */
  evaluate(input: StrategyInput): StrategyIntent[]
  /** The market prices `evaluate` reads (the daemon subscribes to them). */
  symbols(): MarketSymbol[]
  /**
   * `open-only`: the daemon evaluates it only while the exchange of every symbol it reads is open
   * (docs/market-sessions.md); `any` or absent: at every tick.
   */
  readonly marketHours?: MarketHours | undefined
}

/** When a strategy may trade: always, or only while its instruments' exchanges are open. */
export type MarketHours = 'any' | 'open-only'

/**
 * A strategy with memory between evaluations (`protect`): the daemon calls `decide` with its memory
 * in `input.memory` and the average cost and epoch of each position it `watches`, keeps the memory it
 * returns in the ledger, then submits the intents. `evaluate` is `decide(input).intents`. Pure.
 */
export type StatefulStrategy = Strategy & {
  readonly watches: readonly WatchedPosition[]
  decide(input: StrategyInput): StrategyDecision
}
