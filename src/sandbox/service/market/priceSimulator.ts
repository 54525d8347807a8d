import { formatUnits } from 'viem'
import { type ExchangeCode, type MarketCode, marketCodes } from '../../../domain/markets.js'
import { formatPrice, parsePrice } from '../../../domain/unitStrings.js'
import { type Price, priceDecimals } from '../../../domain/units.js'
import type { CatalogueStock } from '../../catalogue.js'
import type { MarketQuoteRecord, PriceSimulator, SandboxClock } from '../contextTypes.js'
import { hashStream, hashWords, symmetricDraw, unitDraw } from './randomness.js'
import { type TickGrid, tickGridFor } from './tickGrid.js'

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

/** The simulator's constants (documented in the README's decisions table). */
export const simulationModel = {
  secondsPerDay: 86_400,
  barSeconds: 60,
  /** Value-noise levels of the daily close: period in days, amplitude in parts per billion. */
  dayLevels: [
    { periodDays: 1, amplitudePpb: 12_000_000n },
    { periodDays: 5, amplitudePpb: 20_000_000n },
    { periodDays: 20, amplitudePpb: 40_000_000n },
    { periodDays: 60, amplitudePpb: 60_000_000n },
  ],
  /** Largest step of the intraday bridge walk per bar, in parts per billion of the open. */
  barStepPpb: 800_000n,
  /** Largest distance of a bar's pivot from the bar's midpoint, in parts per billion. */
  pivotPpb: 400_000n,
  /** Prices stay within [reference / corridor, reference × corridor]. */
  corridor: 2n,
  /** A print trades 1 to this many lots. */
  maxLotsPerPrint: { usex: 2_000n, hkex: 60n, krex: 1_500n } as Record<MarketCode, bigint>,
  /** Day plans kept in memory (one per stock and day asked for). */
  cachedDays: 64,
} as const

const ppb = 1_000_000_000n
const { secondsPerDay, barSeconds } = simulationModel
const barsPerDay = secondsPerDay / barSeconds
const lastSecond = secondsPerDay - 1
/** Lanes of a bar's draws; the jitter of its seconds takes lanes 6 to 9 (2 bits per second). */
const lanes = {
  bridgeStep: 0,
  pivotSecond: 1,
  pivotReach: 2,
  pivotSide: 3,
  openLots: 4,
  pivotLots: 5,
  jitter: 6,
}

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

type StockModel = {
  stock: CatalogueStock
  market: MarketCode
  reference: Price
  lotSize: bigint
  maxLots: bigint
  grid: TickGrid
  /** Value noise of the day before the start day (its close is the reference price). */
  anchorNoise: bigint
}

type Bar = {
  start: number
  end: number
  pivotSecond: number
  openPrice: Price
  pivotPrice: Price
  endPrice: Price
  low: Price
  high: Price
  openQuantity: bigint
  pivotQuantity: bigint
  /** Extremes and sums of the bars before this one. */
  highBefore: Price
  lowBefore: Price
  volumeBefore: bigint
  turnoverBefore: bigint
}

type DayPlan = {
  day: number
  open: Price
  close: Price
  /** Bridge walk, unsnapped: index k is the deviation at bar k's first second. */
  walk: readonly bigint[]
  /** Draws of the day: index = bar, lane = which draw (see {@link lanes}). */
  draw: (index: number, lane: number) => number
  /** Built lazily, in order. */
  bars: Bar[]
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
  const { catalogue, seed } = parameters
  const startDay = Math.floor(parameters.clock.now() / 1000 / secondsPerDay)
  const startMs = startDay * secondsPerDay * 1000
  const models = new Map<string, StockModel>()
  for (const stock of catalogue) {
    const market = marketCodes[stock.exchange]
    const reference = parsePrice(stock.referencePrice)
    const model: StockModel = {
      stock,
      market,
      reference,
      lotSize: BigInt(stock.lotSize),
      maxLots: simulationModel.maxLotsPerPrint[market],
      grid: tickGridFor({
        market,
        spreadTableCode: stock.spreadTableCode,
        reference,
        corridor: simulationModel.corridor,
      }),
      anchorNoise: 0n,
    }
    model.anchorNoise = dayNoise(seed, model, startDay - 1)
    models.set(keyOf(stock.ticker, market), model)
  }
  const plans = new Map<string, DayPlan>()

  function closeOf(model: StockModel, day: number): Price {
    if (day < startDay) return model.reference
    const noise = dayNoise(seed, model, day) - model.anchorNoise
    return model.grid.nearest((model.reference * (ppb + noise)) / ppb)
  }

  function planOf(model: StockModel, day: number): DayPlan {
    const key = `${keyOf(model.stock.ticker, model.market)}@${day}`
    const cached = plans.get(key)
    if (cached) {
      plans.delete(key)
      plans.set(key, cached)
      return cached
    }
    const open = closeOf(model, day - 1)
    const close = closeOf(model, day)
    const step = (open * simulationModel.barStepPpb) / ppb
    const draw = hashStream(['bars', seed, model.stock.ticker, model.market, day])
    const walk: bigint[] = [0n]
    for (let bar = 0; bar < barsPerDay; bar++) {
      walk.push((walk.at(-1) ?? 0n) + symmetricDraw(draw(bar, lanes.bridgeStep), step))
    }
    const plan: DayPlan = { day, open, close, walk, draw, bars: [] }
    plans.set(key, plan)
    while (plans.size > simulationModel.cachedDays) {
      const oldest = plans.keys().next().value
      if (oldest === undefined) break
      plans.delete(oldest)
    }
    return plan
  }

  /** The bridge's knot at the first second of bar `index` (the close at index barsPerDay). */
  function knot(model: StockModel, plan: DayPlan, index: number): Price {
    if (index === 0) return plan.open
    if (index >= barsPerDay) return plan.close
    const k = BigInt(index)
    const n = BigInt(barsPerDay)
    const last = plan.walk[barsPerDay] ?? 0n
    const drift = ((plan.close - plan.open) * k) / n
    const bridge = (plan.walk[index] ?? 0n) - (last * k) / n
    return model.grid.nearest(plan.open + drift + bridge)
  }

  function barOf(model: StockModel, plan: DayPlan, index: number): Bar {
    for (let next = plan.bars.length; next <= index; next++) {
      const previous = plan.bars[next - 1]
      const draw = (lane: number) => plan.draw(next, lane)
      const start = next * barSeconds
      const end = Math.min(start + barSeconds, lastSecond)
      const openPrice = previous ? previous.endPrice : plan.open
      const endPrice = knot(model, plan, next + 1)
      const middle = (openPrice + endPrice) / 2n
      const reach = unitDraw(draw(lanes.pivotReach), (middle * simulationModel.pivotPpb) / ppb)
      const pivotPrice = model.grid.nearest(
        (draw(lanes.pivotSide) & 1) === 0 ? middle + reach : middle - reach,
      )
      const prices = [openPrice, pivotPrice, endPrice]
      const lots = (word: number) => 1n + unitDraw(word, model.maxLots)
      const openQuantity = lots(draw(lanes.openLots)) * model.lotSize
      const pivotQuantity = lots(draw(lanes.pivotLots)) * model.lotSize
      plan.bars.push({
        start,
        end,
        pivotSecond: start + 1 + (draw(lanes.pivotSecond) % (end - start - 1)),
        openPrice,
        pivotPrice,
        endPrice,
        low: minPrice(prices),
        high: maxPrice(prices),
        openQuantity,
        pivotQuantity,
        highBefore: previous ? maxPrice([previous.highBefore, previous.high]) : plan.open,
        lowBefore: previous ? minPrice([previous.lowBefore, previous.low]) : plan.open,
        volumeBefore: previous ? previous.volumeBefore + previous.openQuantity + previous.pivotQuantity : 0n,
        turnoverBefore: previous
          ? previous.turnoverBefore +
            previous.openQuantity * previous.openPrice +
            previous.pivotQuantity * previous.pivotPrice
          : 0n,
      })
    }
    const bar = plan.bars[index]
    if (!bar) throw new Error(`price simulator: bar ${index} of day ${plan.day} was not built`)
    return bar
  }

  /** The price at second `second` of the day, which lies in `bar`. */
  function priceAt(model: StockModel, plan: DayPlan, bar: Bar, second: number): Price {
    if (second === bar.start) return bar.openPrice
    if (second === bar.end) return bar.endPrice
    if (second === bar.pivotSecond) return bar.pivotPrice
    const [from, fromPrice, to, toPrice] =
      second < bar.pivotSecond
        ? [bar.start, bar.openPrice, bar.pivotSecond, bar.pivotPrice]
        : [bar.pivotSecond, bar.pivotPrice, bar.end, bar.endPrice]
    const line = fromPrice + ((toPrice - fromPrice) * BigInt(second - from)) / BigInt(to - from)
    const base = model.grid.nearest(line)
    const offset = second - bar.start
    const word = plan.draw(bar.start / barSeconds, lanes.jitter + Math.floor(offset / 16))
    const bits = (word >>> ((offset % 16) * 2)) & 3
    const moved = bits === 0 ? model.grid.below(base) : bits === 3 ? model.grid.above(base) : base
    return clampPrice(moved, bar.low, bar.high)
  }

  function locate(model: StockModel, nowMs: number) {
    const seconds = Math.floor(Math.max(Number.isFinite(nowMs) ? nowMs : startMs, startMs) / 1000)
    const day = Math.floor(seconds / secondsPerDay)
    const second = seconds - day * secondsPerDay
    const plan = planOf(model, day)
    const bar = barOf(model, plan, Math.min(Math.floor(second / barSeconds), barsPerDay - 1))
    return { plan, bar, second }
  }

  function simulate(ticker: string, market: MarketCode, nowMs: number): SimulatedQuote | undefined {
    const model = models.get(keyOf(ticker, market))
    if (!model) return undefined
    const { plan, bar, second } = locate(model, nowMs)
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

  return {
    startMs,
    simulate,
    marketQuote(symbol, market, nowMs) {
      const quote = simulate(symbol, market, nowMs)
      const model = models.get(keyOf(symbol, market))
      if (!quote || !model) return undefined
      const record: MarketQuoteRecord = {
        symbol,
        status: 'normal',
        close: formatPrice(quote.close),
        prev_close: formatPrice(quote.prevClose),
        name: model.stock.name,
        market,
        open: formatPrice(quote.open),
        high: formatPrice(quote.high),
        low: formatPrice(quote.low),
        volume: quote.volume.toString(),
        turnover: formatUnits(quote.turnover, priceDecimals),
      }
      return record
    },
    lastPrice(ticker, exchange: ExchangeCode, nowMs) {
      const model = models.get(keyOf(ticker, marketCodes[exchange]))
      if (!model)
        throw new Error(`price simulator: no stock ${ticker} on exchange ${exchange} in the catalogue`)
      const { plan, bar, second } = locate(model, nowMs)
      return formatPrice(priceAt(model, plan, bar, second))
    },
  }
}

function keyOf(ticker: string, market: MarketCode): string {
  return `${market}:${ticker}`
}

/** The close's deviation from the reference on `day`, in parts per billion (before anchoring). */
function dayNoise(seed: string, model: StockModel, day: number): bigint {
  let total = 0n
  for (const { periodDays, amplitudePpb } of simulationModel.dayLevels) {
    const index = Math.floor(day / periodDays)
    const knotAt = (at: number) =>
      symmetricDraw(
        hashWords(['day', seed, model.stock.ticker, model.market, periodDays, at])[0] ?? 0,
        amplitudePpb,
      )
    const from = knotAt(index)
    const to = knotAt(index + 1)
    total += from + ((to - from) * BigInt(day - index * periodDays)) / BigInt(periodDays)
  }
  return total
}

// bigint has no Math.min/Math.max.
function maxPrice(prices: readonly Price[]): Price {
  let result = prices[0] ?? (0n as Price)
  for (const price of prices) if (price > result) result = price
  return result
}

function minPrice(prices: readonly Price[]): Price {
  let result = prices[0] ?? (0n as Price)
  for (const price of prices) if (price < result) result = price
  return result
}

function clampPrice(price: Price, low: Price, high: Price): Price {
  if (price < low) return low
  if (price > high) return high
  return price
}
