import { marketDefaults } from '@stockroute/client/domain/marketRules.js'
import type { ExchangeCode, MarketCode } from '@stockroute/client/domain/markets.js'
import {
  formatShareQuantity,
  formatStockQuantity,
  parsePrice,
  parseShareQuantity,
} from '@stockroute/client/domain/unitStrings.js'
import type { Price, ShareQuantity, StockQuantity } from '@stockroute/client/domain/units.js'
import { type TwapStrategyConfig, twapStrategyConfigSchema } from './config.js'
import { instrumentOf } from './instrumentOf.js'
import { parseStrategyConfig } from './parseStrategyConfig.js'
import { sliceOrder, sliceTimes } from './sliceOrder.js'
import type { ListingView, MarketSymbol, Strategy, StrategyInput, StrategyIntent } from './types.js'

/** The jitter of a TWAP without `jitterPct`: each slice up to 20% of its interval later. */
export const defaultTwapJitterPct = 20

/** One planned slice of a TWAP: when it trades and how many whole shares. */
export type TwapSlice = {
  /** 1-based, among the configured slices. */
  readonly index: number
  /** `twap:<id>:slice:<index>`. */
  readonly intentId: string
  /** When it is due, epoch ms. */
  readonly atMs: number
  readonly shares: StockQuantity
}

/** The part of a TWAP that is not whole lots: traded as the ShareToken with the last slice, where listed. */
export type TwapRemainder = {
  /** `twap:<id>:remainder`. */
  readonly intentId: string
  /** The ShareToken's ticker: the stock's with `s`. */
  readonly ticker: string
  /** ShareToken base units (1e18 per share). */
  readonly quantity: ShareQuantity
  /** Due with the last slice, epoch ms. */
  readonly atMs: number
}

/** Whether the remainder is traded as the ShareToken, and why not when it is not. */
export type TwapRemainderDecision =
  | { readonly send: true }
  | { readonly send: false; readonly reason: string }

/** A TWAP strategy: its plan (fixed at creation) and the decisions that depend on the snapshot. */
export type TwapStrategy = Strategy & {
  readonly kind: 'twap'
  readonly chainId: number
  readonly ticker: string
  readonly exchange: ExchangeCode
  readonly market: MarketCode
  readonly side: 'buy' | 'sell'
  /** The whole order in ShareToken base units (1e18 per share). */
  readonly quantity: ShareQuantity
  /** The board lot the slices are whole multiples of. */
  readonly lotSize: bigint
  /** The window `[startMs, endMs)`, epoch ms. */
  readonly startMs: number
  readonly endMs: number
  readonly limitPrice: Price | undefined
  /** The slices with at least one lot, ascending by time. */
  readonly slices: readonly TwapSlice[]
  /** Null when the order is whole lots. */
  readonly remainder: TwapRemainder | null
  /** Whether the chain's listings let the remainder trade as the ShareToken (`send: true` when there is none to trade). */
  remainderDecision(listings: StrategyInput['listings']): TwapRemainderDecision
  /**
   * Why the strategy trades nothing now although slices are due (the token list's board lot differs
   * from the configured one), or undefined.
   */
  blocked(listings: StrategyInput['listings']): string | undefined
  /** What the strategy's progress shows besides its fills: a blocked plan, a refused remainder. */
  notes(listings: StrategyInput['listings']): string[]
}

/**
 * A strategy that trades `quantity` shares of a StockToken in `slices` slices over a time window
 * (time-weighted average price). The plan is fixed at creation and depends on nothing else:
 * {@link sliceOrder} cuts the order into whole lots (the configured `lotSize`, required for HK;
 * 1 share in the US and KR), spread as evenly as they go, and {@link sliceTimes} gives each slice
 * its time, moved later by a pseudo-random share (up to `jitterPct`, default 20, percent of its
 * interval) derived from the strategy id and the slice index, so a restart computes the same plan.
 *
 * Each evaluation returns every slice whose time has come (`input.nowMs`), with id
 * `twap:<id>:slice:<index>`, as a share quantity (`amountType: 'stocktoken'`) with the configured
 * `limitPrice` if any; the engine trades each id at most once, so a slice missed while the daemon
 * was down is traded at the next evaluation. What is not a whole lot (the odd shares, a fraction)
 * is the remainder: it trades with the last slice as the ShareToken (ticker + `s`, id
 * `twap:<id>:remainder`) when the snapshot's listings show the chain lists it, else it is not
 * traded and {@link TwapStrategy.notes} says why. When the chain's token list gives the ticker
 * another board lot than the configured one, nothing is traded (the slices would be refused).
 *
 * Throws {@link StrategyConfigError} at creation for a bad configuration.
 *
 * @example
 * const twap = createTwapStrategy({
 *   id: 'twap-0700', chainId: 31337, ticker: '0700', exchange: 1, side: 'buy', quantity: '1050',
 *   lotSize: 100, startAt: '2026-03-02T01:30:00Z', durationMinutes: 60, slices: 10,
 * })
 * twap.slices.map((slice) => slice.shares) // [100n, 100n, …] (ten slices)
 * twap.remainder?.quantity // 50n * 10n ** 18n: traded as 0700s where chain 31337 lists it
 */
export function createTwapStrategy(
  config: Omit<TwapStrategyConfig, 'kind'> & { kind?: 'twap' | undefined },
  /** With `startAt: "first-run"`: when it first ran (the daemon reads it from its ledger); default now. */
  options: { firstRunMs?: number | undefined } = {},
): TwapStrategy {
  const parsed = parseStrategyConfig(twapStrategyConfigSchema, { ...config, kind: 'twap' })
  const exchange: ExchangeCode = parsed.exchange
  const { market, symbol } = instrumentOf({ ticker: parsed.ticker, exchange })
  const { lotSize, quantity, startMs, durationMs, slices, remainder } = twapPlanOf(
    parsed,
    market,
    options.firstRunMs,
  )
  const limitPrice = parsed.limitPrice === undefined ? undefined : parsePrice(parsed.limitPrice)
  const listingOf = (listings: readonly ListingView[], ticker: string) =>
    listings.find(
      (listing) =>
        listing.chainId === parsed.chainId && listing.exchange === exchange && listing.ticker === ticker,
    )

  const remainderDecision = (listings: StrategyInput['listings']): TwapRemainderDecision => {
    if (remainder === null) return { send: true }
    const what = `the remainder of ${formatShareQuantity(remainder.quantity)} share${remainder.quantity === 10n ** 18n ? '' : 's'} (not a whole lot of ${lotSize})`
    if (market === 'krex')
      return { send: false, reason: `${what} is not traded: South Korea stocks trade in whole shares only` }
    if (listings === undefined)
      return {
        send: false,
        reason: `${what} waits: the chain's token list is not known yet, so whether chain ${parsed.chainId} lists the ShareToken ${remainder.ticker} is not known`,
      }
    const listing = listingOf(listings, remainder.ticker)
    if (listing === undefined || listing.tokenKind !== 'share')
      return {
        send: false,
        reason: `${what} is not traded: chain ${parsed.chainId} lists no ShareToken ${remainder.ticker}`,
      }
    return { send: true }
  }

  const blocked = (listings: StrategyInput['listings']): string | undefined => {
    const listing = listings === undefined ? undefined : listingOf(listings, parsed.ticker)
    if (listing === undefined || listing.lotSize === lotSize) return undefined
    return `nothing is traded: the configured lotSize is ${lotSize}, but chain ${parsed.chainId}'s token list gives ${parsed.ticker} a board lot of ${listing.lotSize}: set lotSize to ${listing.lotSize}`
  }

  const intentOf = (intentId: string, ticker: string, amountIn: string): StrategyIntent => ({
    intentId,
    chainId: parsed.chainId,
    ticker,
    exchange,
    side: parsed.side,
    amountIn,
    amountType: 'stocktoken',
    ...(limitPrice === undefined ? {} : { limitPrice }),
  })

  return {
    id: parsed.id,
    kind: 'twap',
    marketHours: parsed.marketHours ?? 'any',
    chainId: parsed.chainId,
    ticker: parsed.ticker,
    exchange,
    market,
    side: parsed.side,
    quantity,
    lotSize,
    startMs,
    endMs: startMs + durationMs,
    limitPrice,
    slices,
    remainder,
    remainderDecision,
    blocked,
    notes(listings) {
      const notes: string[] = []
      const block = blocked(listings)
      if (block !== undefined) notes.push(block)
      const decision = remainderDecision(listings)
      if (!decision.send) notes.push(decision.reason)
      return notes
    },
    // The decision needs no price, but the trade does: the engine's guard compares each quote with
    // the market price (and the first slice's is the order's arrival price).
    symbols(): MarketSymbol[] {
      return [{ market, symbol }]
    },
    evaluate(input: StrategyInput): StrategyIntent[] {
      if (!Number.isFinite(input.nowMs) || blocked(input.listings) !== undefined) return []
      const intents = slices
        .filter((slice) => slice.atMs <= input.nowMs)
        .map((slice) => intentOf(slice.intentId, parsed.ticker, formatStockQuantity(slice.shares)))
      if (remainder !== null && remainder.atMs <= input.nowMs && remainderDecision(input.listings).send)
        intents.push(intentOf(remainder.intentId, remainder.ticker, formatShareQuantity(remainder.quantity)))
      return intents
    },
  }
}

/**
 * The order's plan, fixed once made: its lot, quantity and window, the slices of whole lots at their
 * jittered times, and the remainder that is not a whole lot.
 */
function twapPlanOf(parsed: TwapStrategyConfig, market: MarketCode, firstRunMs: number | undefined) {
  const lotSize =
    parsed.lotSize === undefined ? (marketDefaults[market].lotSize ?? 1n) : BigInt(parsed.lotSize)
  const quantity = parseShareQuantity(parsed.quantity)
  const firstRun = parsed.startAt === 'first-run'
  const startMs = firstRun ? (firstRunMs ?? Date.now()) : Date.parse(parsed.startAt)
  const durationMs = (parsed.durationMinutes ?? parsed.windowMinutes ?? 0) * 60_000
  const times = sliceTimes({
    strategyId: parsed.id,
    startMs,
    durationMs,
    slices: parsed.slices,
    jitterPct: parsed.jitterPct ?? defaultTwapJitterPct,
  })
  const sliced = sliceOrder({ quantity, slices: parsed.slices, lotSize })
  // A window from the first run starts with its first slice: the ledger keeps that slice's time as the start.
  if (firstRun) times[0] = startMs
  const timeOf = (index: number) => times[index - 1] ?? startMs
  const slices: TwapSlice[] = sliced.slices.map((slice) => ({
    index: slice.index,
    intentId: `twap:${parsed.id}:slice:${slice.index}`,
    atMs: timeOf(slice.index),
    shares: slice.shares,
  }))
  const lastAtMs = slices.at(-1)?.atMs ?? timeOf(parsed.slices)
  const remainder: TwapRemainder | null =
    sliced.remainder > 0n
      ? {
          intentId: `twap:${parsed.id}:remainder`,
          ticker: `${parsed.ticker}s`,
          quantity: sliced.remainder,
          atMs: lastAtMs,
        }
      : null
  return { lotSize, quantity, startMs, durationMs, slices, remainder }
}
