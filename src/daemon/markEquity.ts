import type { FxRates } from '@stockroute/client/domain/quotePrice.js'
import { valuePosition } from '../report/queries/valuePosition.js'
import type { EquityMark, Ledger } from '../store/index.js'
import type { MarketDataCache } from './marketData.js'
import { priceBookOf } from './priceBook.js'

/** How often the open positions are marked: a curve a person reads, a row per asset a minute. */
export const equityMarkEveryMs = 60_000

/**
 * Marks the ledger's open positions at the market, per chain and asset, at most once per
 * `everyMs` (the daemon calls it after each market-data tick, when its prices are fresh). A
 * position without a market price counts at its last fill's price, else at cost, and is counted as
 * unpriced. Returns the marks written (none when the last was too recent or nothing is open).
 *
 * @example
 * const mark = createEquityMarker({ ledger, marketData, fxRates: engine.settings.fxRates })
 * mark(Date.now())
 */
export function createEquityMarker(parameters: {
  ledger: Pick<Ledger, 'database' | 'positions' | 'equityMarks'>
  /** The daemon's price cache: its fresh prices value the positions. */
  marketData: Pick<MarketDataCache, 'snapshot'>
  fxRates?: FxRates | undefined
  everyMs?: number | undefined
}): (nowMs: number) => EquityMark[] {
  const { ledger, everyMs = equityMarkEveryMs } = parameters
  let lastMs = Number.NEGATIVE_INFINITY
  return (nowMs) => {
    if (nowMs - lastMs < everyMs) return []
    const context = { marketPrices: priceBookOf(parameters.marketData), fxRates: parameters.fxRates }
    const marks = new Map<string, EquityMark>()
    for (const position of ledger.positions.listPositions()) {
      if (position.balance === 0n) continue
      const key = `${position.chainId}:${position.assetToken}`
      const mark = marks.get(key) ?? {
        chainId: position.chainId,
        assetToken: position.assetToken,
        assetDecimals: position.assetDecimals,
        atMs: nowMs,
        costBasis: 0n,
        marketValue: 0n,
        positions: 0,
        unpriced: 0,
      }
      const value = valuePosition(ledger.database, context, position)
      mark.costBasis += position.costBasis
      mark.marketValue += value.marketValue ?? position.costBasis
      mark.positions += 1
      if (value.priceSource !== 'market') mark.unpriced += 1
      marks.set(key, mark)
    }
    const written = [...marks.values()]
    // Nothing open: nothing to mark, and the first position gets its mark at the next tick.
    if (written.length === 0) return written
    ledger.equityMarks.record(written)
    lastMs = nowMs
    return written
  }
}
