import { type ExchangeCode, type MarketCode, marketCodes } from '@stockroute/client/domain/markets.js'
import { formatPrice } from '@stockroute/client/domain/unitStrings.js'
import { type Price, priceDecimals } from '@stockroute/client/domain/units.js'
import { formatUnits } from 'viem'
import type { CatalogueStock } from '../../catalogue.js'
import type { MarketQuoteRecord, PriceSimulator, SandboxClock } from '../contextTypes.js'
import { barOf, barsPerDay, createDayPlanCache, type DayPlanCache, priceAt } from './intradayBars.js'
import { type StockModel, simulationModel, stockKey, stockModelsOf } from './stockModels.js'

// A deterministic market for the sandbox's catalogue. Every value is a pure function of
// (seed, stock, start day, time): no state leaks from one call into the next, so two simulators
// with the same seed and start day agree at every instant whatever they were asked before, and a
// clock that jumps by days costs the same as one that moves by a second.
//
// Three levels, coarse to fine, each anchored on the level above:
// 1. Day closes. A trading day is a UTC day. The close of day d is the reference price moved by a
//    bounded "value noise" (hashed knots every 1, 5, 20 and 60 days, interpolated linearly and
//    summed), so any day's close costs O(1), closes drift like a walk from day to day, and they
//    stay within about ±13% of the reference. The day before the simulator's start day closes at
//    the reference price.
// 2. One-minute bars. A day opens at the previous close (no overnight gap) and ends, at its last
//    second 23:59:59, exactly on its close. In between, knots every 60 s follow a Brownian bridge
//    from open to close (a hashed walk with its end pinned), each bar with a hashed pivot (a
//    price beyond the bar's midpoint, reached at a hashed second).
// 3. Seconds. A walk step happens every second: within a bar the price follows the straight line
//    knot → pivot → knot, snapped to the tick grid, plus a hashed jitter of one tick up or down,
//    clamped to the bar's knots and pivot. So the bar's extremes are always among those three
//    prices, and the day's high and low so far cost O(bars), not O(seconds).
// Trades ("prints") happen at each bar's first second (at its opening knot) and at its pivot
// second (at the pivot price), in whole lots: volume is their sum, turnover the sum of price ×
// quantity, so turnover / volume always lies between the day's low and high.
// Randomness: SHA-256 of (seed, ticker, market, level, day or knot index), the bars' draws mixed
// from one such key per day by step index (see randomness.ts). No Math.random.
// Work per call: a stock's day is planned once (one SHA-256 and 1,440 walk steps), its bars built
// lazily up to the second asked for, and kept in a small cache (about 5 ms for a whole day of one
// stock); a quote then walks at most the 60 seconds of the current bar. Prices are bigint `Price`s
// (scale 1e8) on the market's tick grid (tickGrid.ts, the domain's spread tables) inside a
// corridor of half to twice the reference price; decimal strings only at the edge.
// Files: stockModels.ts (the constants, each stock's model, level 1), intradayBars.ts (levels 2
// and 3), this one (locating an instant and formatting the quote).

export { simulationModel } from './stockModels.js'

const { secondsPerDay, barSeconds } = simulationModel

export type PriceSimulatorParameters = {
  catalogue: readonly CatalogueStock[]
  /** The same seed gives the same prices at the same times. */
  seed: string
  /** Its time at creation fixes the start day, whose previous close is each reference price. */
  clock: SandboxClock
}

/** The state of one stock at one instant, in bigint; {@link PriceSimulator} formats it. */
export type SimulatedQuote = {
  open: Price
  high: Price
  low: Price
  close: Price
  prevClose: Price
  /** Shares traded today so far. */
  volume: bigint
  /** Σ price × quantity of today's prints, scaled like a Price (1e8). */
  turnover: bigint
}

/**
 * A deterministic, seeded price simulator for the catalogue (model described at the top of this
 * file). Times before the start day's midnight (UTC) are answered as that midnight.
 *
 * @example
 * const prices = createPriceSimulator({ catalogue: sandboxCatalogue, seed: 'demo', clock: systemClock })
 * prices.marketQuote('0700', 'hkex', Date.now()) // { symbol: '0700', close: '419.2', ... }
 */
export function createPriceSimulator(parameters: PriceSimulatorParameters): PriceSimulator & {
  /** The bigint state behind {@link PriceSimulator.marketQuote}; undefined for an unknown stock. */
  simulate: (ticker: string, market: MarketCode, nowMs: number) => SimulatedQuote | undefined
  /** Midnight (UTC, ms) of the start day. */
  startMs: number
} {
  const startDay = Math.floor(parameters.clock.now() / 1000 / secondsPerDay)
  const startMs = startDay * secondsPerDay * 1000
  const models = stockModelsOf(parameters.catalogue, parameters.seed, startDay)
  const plans = createDayPlanCache(simulationModel.cachedDays)
  const instant = (model: StockModel, nowMs: number) => locate(plans, model, nowMs, startMs)
  const simulate = (ticker: string, market: MarketCode, nowMs: number) => {
    const model = models.get(stockKey(ticker, market))
    return model ? quoteAt(instant(model, nowMs)) : undefined
  }
  return {
    startMs,
    simulate,
    marketQuote(symbol, market, nowMs) {
      const quote = simulate(symbol, market, nowMs)
      const model = models.get(stockKey(symbol, market))
      return quote && model ? marketQuoteRecord(model, quote) : undefined
    },
    lastPrice(ticker, exchange: ExchangeCode, nowMs) {
      const model = models.get(stockKey(ticker, marketCodes[exchange]))
      if (!model)
        throw new Error(`price simulator: no stock ${ticker} on exchange ${exchange} in the catalogue`)
      const { model: stock, plan, bar, second } = instant(model, nowMs)
      return formatPrice(priceAt(stock, plan, bar, second))
    },
  }
}

type Instant = ReturnType<typeof locate>

/** The day plan, bar and second of the day of `nowMs` (not before `startMs`) for one stock. */
function locate(plans: DayPlanCache, model: StockModel, nowMs: number, startMs: number) {
  const seconds = Math.floor(Math.max(Number.isFinite(nowMs) ? nowMs : startMs, startMs) / 1000)
  const day = Math.floor(seconds / secondsPerDay)
  const second = seconds - day * secondsPerDay
  const plan = plans.planOf(model, day)
  const bar = barOf(model, plan, Math.min(Math.floor(second / barSeconds), barsPerDay - 1))
  return { model, plan, bar, second }
}

/** The day so far at an instant: the bar's seconds walked up to it, the bars before it summed. */
function quoteAt({ model, plan, bar, second }: Instant): SimulatedQuote {
  let high = bar.highBefore
  let low = bar.lowBefore
  let close = bar.openPrice
  for (let at = bar.start; at <= second; at++) {
    close = priceAt(model, plan, bar, at)
    if (close > high) high = close
    if (close < low) low = close
  }
  const pivotTraded = second >= bar.pivotSecond
  return {
    open: plan.open,
    high,
    low,
    close,
    prevClose: plan.open,
    volume: bar.volumeBefore + bar.openQuantity + (pivotTraded ? bar.pivotQuantity : 0n),
    turnover:
      bar.turnoverBefore +
      bar.openQuantity * bar.openPrice +
      (pivotTraded ? bar.pivotQuantity * bar.pivotPrice : 0n),
  }
}

function marketQuoteRecord(model: StockModel, quote: SimulatedQuote): MarketQuoteRecord {
  return {
    symbol: model.stock.ticker,
    status: 'normal',
    close: formatPrice(quote.close),
    prev_close: formatPrice(quote.prevClose),
    name: model.stock.name,
    market: model.market,
    open: formatPrice(quote.open),
    high: formatPrice(quote.high),
    low: formatPrice(quote.low),
    volume: quote.volume.toString(),
    turnover: formatUnits(quote.turnover, priceDecimals),
  }
}
