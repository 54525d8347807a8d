import { type MarketCode, marketCodes } from '@stockroute/client/domain/markets.js'
import { parsePrice } from '@stockroute/client/domain/unitStrings.js'
import type { Price } from '@stockroute/client/domain/units.js'
import type { CatalogueStock } from '../../catalogue.js'
import { hashWords, symmetricDraw } from './randomness.js'
import { type TickGrid, tickGridFor } from './tickGrid.js'

// The price simulator's constants, and level 1 of its model (priceSimulator.ts): each stock's
// parameters and its day closes, a bounded value noise around the reference price.

/** The simulator's constants (documented in docs/sandbox.md, "Market data"). */
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

export const ppb = 1_000_000_000n

/** One stock of one simulator: what every price of it is computed from. */
export type StockModel = {
  stock: CatalogueStock
  market: MarketCode
  /** The simulator's seed. */
  seed: string
  /** The simulator's start day (UTC days since the epoch); the day before closes at `reference`. */
  startDay: number
  reference: Price
  lotSize: bigint
  maxLots: bigint
  grid: TickGrid
  /** Value noise of the day before the start day (its close is the reference price). */
  anchorNoise: bigint
}

/** The models of a catalogue, by {@link stockKey}. */
export function stockModelsOf(
  catalogue: readonly CatalogueStock[],
  seed: string,
  startDay: number,
): Map<string, StockModel> {
  return new Map(
    catalogue.map((stock) => {
      const model = stockModelOf(stock, seed, startDay)
      return [stockKey(stock.ticker, model.market), model]
    }),
  )
}

function stockModelOf(stock: CatalogueStock, seed: string, startDay: number): StockModel {
  const market = marketCodes[stock.exchange]
  const reference = parsePrice(stock.referencePrice)
  const model: StockModel = {
    stock,
    market,
    seed,
    startDay,
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
  model.anchorNoise = dayNoise(model, startDay - 1)
  return model
}

export function stockKey(ticker: string, market: MarketCode): string {
  return `${market}:${ticker}`
}

/** The close of `day` (UTC days since the epoch): the reference price before the start day. */
export function closeOf(model: StockModel, day: number): Price {
  if (day < model.startDay) return model.reference
  const noise = dayNoise(model, day) - model.anchorNoise
  return model.grid.nearest((model.reference * (ppb + noise)) / ppb)
}

/** The close's deviation from the reference on `day`, in parts per billion (before anchoring). */
function dayNoise(model: StockModel, day: number): bigint {
  let total = 0n
  for (const { periodDays, amplitudePpb } of simulationModel.dayLevels) {
    const index = Math.floor(day / periodDays)
    const knotAt = (at: number) =>
      symmetricDraw(
        hashWords(['day', model.seed, model.stock.ticker, model.market, periodDays, at])[0] ?? 0,
        amplitudePpb,
      )
    const from = knotAt(index)
    const to = knotAt(index + 1)
    total += from + ((to - from) * BigInt(day - index * periodDays)) / BigInt(periodDays)
  }
  return total
}
