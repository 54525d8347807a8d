import type { FxRates } from '@stockroute/client/domain/quotePrice.js'
import { valuePosition } from '../report/queries/valuePosition.js'
import type { EquityMark, Ledger } from '../store/index.js'
import type { MarketDataCache } from './marketData.js'
import { priceBookOf } from './priceBook.js'

/** How often the open positions are marked: a curve a person reads, a row per asset a minute. */
export const equityMarkEveryMs = 60_000

/** The shortest time between two marks taken after fills ({@link EquityMarker.soon}). */
export const equityMarkAfterFillsGapMs = 1_000

/** Marks the open positions (see {@link createEquityMarker}). */
export type EquityMarker = ((nowMs: number, options?: { force?: boolean | undefined }) => EquityMark[]) & {
  /**
   * A mark taken soon whatever the time since the last (after fills, so that the drawdown rule sees
   * the positions as they are now): several calls in one turn make one mark, at most one a second.
   */
  soon(): void
  /** Drops a mark `soon` planned. */
  stop(): void
}

/**
 * Marks the ledger's open positions at the market, per chain and asset, at most once per
 * `everyMs` (the daemon calls it after each market-data tick, when its prices are fresh). A
 * position without a market price counts at its last fill's price, else at cost, and is counted as
 * unpriced. Returns the marks written (none when the last was too recent or nothing is open).
 * `force` marks whatever the time since the last. Each valuation (also one that found nothing open)
 * is handed to `onMark`: the entry-halt rules observe equity there (src/daemon/riskWatch.ts).
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
  /** After each valuation, with the marks it wrote ([] when nothing is open) and their instant. */
  onMark?: ((marks: EquityMark[], atMs: number) => void) | undefined
  /** Whether `soon` marks (after fills: the drawdown limit wants the positions as they are); default false. */
  afterFills?: boolean | undefined
  now?: (() => number) | undefined
}): EquityMarker {
  const { ledger, everyMs = equityMarkEveryMs, onMark, now = Date.now } = parameters
  let lastMs = Number.NEGATIVE_INFINITY
  let soonTimer: NodeJS.Timeout | undefined
  let lastSoonMs = Number.NEGATIVE_INFINITY
  const mark = (nowMs: number, options: { force?: boolean | undefined } = {}): EquityMark[] => {
    if (!options.force && nowMs - lastMs < everyMs) return []
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
    if (written.length > 0) {
      ledger.equityMarks.record(written)
      lastMs = nowMs
    }
    onMark?.(written, nowMs)
    return written
  }
  return Object.assign(mark, {
    soon() {
      if (!parameters.afterFills || soonTimer !== undefined) return
      const delay = Math.max(0, lastSoonMs + equityMarkAfterFillsGapMs - now())
      soonTimer = setTimeout(() => {
        soonTimer = undefined
        lastSoonMs = now()
        try {
          mark(lastSoonMs, { force: true })
        } catch {
          // A storage fault is the ledger's to report (its storageFault, /health); the next tick marks.
        }
      }, delay)
      soonTimer.unref()
    },
    stop() {
      clearTimeout(soonTimer)
      soonTimer = undefined
    },
  })
}
