import type { Price } from '@stockroute/client/domain/units.js'
import { hashStream, symmetricDraw, unitDraw } from './randomness.js'
import { closeOf, ppb, type StockModel, simulationModel, stockKey } from './stockModels.js'

// Levels 2 and 3 of the price simulator's model (priceSimulator.ts): a day's plan (its bridge walk
// from open to close), its one-minute bars built lazily in order, and the price at each second.

const { secondsPerDay, barSeconds } = simulationModel
export const barsPerDay = secondsPerDay / barSeconds
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

export type Bar = {
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

export type DayPlan = {
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

/** The day plans asked for last, at most `capacity` of them (least recently used go first). */
export type DayPlanCache = { planOf: (model: StockModel, day: number) => DayPlan }

export function createDayPlanCache(capacity: number): DayPlanCache {
  const plans = new Map<string, DayPlan>()
  return {
    planOf(model, day) {
      const key = `${stockKey(model.stock.ticker, model.market)}@${day}`
      const cached = plans.get(key)
      if (cached) {
        plans.delete(key)
        plans.set(key, cached)
        return cached
      }
      const plan = newDayPlan(model, day)
      plans.set(key, plan)
      while (plans.size > capacity) {
        const oldest = plans.keys().next().value
        if (oldest === undefined) break
        plans.delete(oldest)
      }
      return plan
    },
  }
}

function newDayPlan(model: StockModel, day: number): DayPlan {
  const open = closeOf(model, day - 1)
  const close = closeOf(model, day)
  const step = (open * simulationModel.barStepPpb) / ppb
  const draw = hashStream(['bars', model.seed, model.stock.ticker, model.market, day])
  const walk: bigint[] = [0n]
  for (let bar = 0; bar < barsPerDay; bar++) {
    walk.push((walk.at(-1) ?? 0n) + symmetricDraw(draw(bar, lanes.bridgeStep), step))
  }
  return { day, open, close, walk, draw, bars: [] }
}

/** Bar `index` of the plan's day, building the bars before it first. */
export function barOf(model: StockModel, plan: DayPlan, index: number): Bar {
  for (let next = plan.bars.length; next <= index; next++) plan.bars.push(nextBar(model, plan, next))
  const bar = plan.bars[index]
  if (!bar) throw new Error(`price simulator: bar ${index} of day ${plan.day} was not built`)
  return bar
}

/** Bar `index`, once the bars before it are built. */
function nextBar(model: StockModel, plan: DayPlan, index: number): Bar {
  const previous = plan.bars[index - 1]
  const draw = (lane: number) => plan.draw(index, lane)
  const start = index * barSeconds
  const end = Math.min(start + barSeconds, lastSecond)
  const openPrice = previous ? previous.endPrice : plan.open
  const endPrice = knot(model, plan, index + 1)
  const middle = (openPrice + endPrice) / 2n
  const reach = unitDraw(draw(lanes.pivotReach), (middle * simulationModel.pivotPpb) / ppb)
  const pivotPrice = model.grid.nearest((draw(lanes.pivotSide) & 1) === 0 ? middle + reach : middle - reach)
  const prices = [openPrice, pivotPrice, endPrice]
  const lots = (word: number) => 1n + unitDraw(word, model.maxLots)
  return {
    start,
    end,
    pivotSecond: start + 1 + (draw(lanes.pivotSecond) % (end - start - 1)),
    openPrice,
    pivotPrice,
    endPrice,
    low: minPrice(prices),
    high: maxPrice(prices),
    openQuantity: lots(draw(lanes.openLots)) * model.lotSize,
    pivotQuantity: lots(draw(lanes.pivotLots)) * model.lotSize,
    ...totalsBefore(plan, previous),
  }
}

/** Extremes and sums of the day up to the end of `previous` (nothing traded before the first bar). */
function totalsBefore(
  plan: DayPlan,
  previous: Bar | undefined,
): Pick<Bar, 'highBefore' | 'lowBefore' | 'volumeBefore' | 'turnoverBefore'> {
  if (!previous) return { highBefore: plan.open, lowBefore: plan.open, volumeBefore: 0n, turnoverBefore: 0n }
  return {
    highBefore: maxPrice([previous.highBefore, previous.high]),
    lowBefore: minPrice([previous.lowBefore, previous.low]),
    volumeBefore: previous.volumeBefore + previous.openQuantity + previous.pivotQuantity,
    turnoverBefore:
      previous.turnoverBefore +
      previous.openQuantity * previous.openPrice +
      previous.pivotQuantity * previous.pivotPrice,
  }
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

/** The price at second `second` of the day, which lies in `bar`. */
export function priceAt(model: StockModel, plan: DayPlan, bar: Bar, second: number): Price {
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
