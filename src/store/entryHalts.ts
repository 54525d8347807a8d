import { intToText, safeInteger, textToInt } from './codec.js'
import type { RepositoryContext } from './context.js'

// Entry halts and equity peaks (migration 12, docs/configuration.md): what the risk limits that halt by
// themselves keep across restarts. The rules (which limit, which figure, the reason) are the
// engine's (src/engine/entryHalts.ts); this is their memory and the ledger figures they read.

/** The limit that latched an entry halt (the configuration's field). */
export type EntryHaltRule = 'maxDrawdownPct' | 'maxDailyRealizedLoss'

/** A latched halt of new entries (buys): sells still run; only a resume clears it. */
export type EntryHalt = {
  /** The chain whose limit was reached; null: the limit of all chains together. */
  chainId: number | null
  rule: EntryHaltRule
  /** A sentence: the figure, the limit, and the peak or day it is measured from. */
  reason: string
  /** The figures behind the reason (decimal strings), for the event stream and /health. */
  figures: Record<string, string>
  atMs: number
}

/**
 * The equity of one scope as the drawdown rule follows it, in 18-decimal notional (each chain's
 * asset at par), as PnL: realized PnL of the positions plus their unrealized PnL at a mark. The
 * equity is `capital + pnl`; the capital is configuration, so a changed capital moves peak and
 * equity alike.
 */
export type EquityPeak = {
  /** null: all chains together. */
  chainId: number | null
  /** The highest PnL observed since `sinceMs`. */
  peakPnl: bigint
  peakAtMs: number
  /** The latest PnL observed. */
  lastPnl: bigint
  lastAtMs: number
  /** The first observation after the ledger began or after the last resume. */
  sinceMs: number
}

/** What the entry-halt rules keep in the ledger and read of it (part of `ledger.risk`). */
export type EntryHaltsRepository = {
  /**
   * The entry halts in force, all chains' first.
   *
   * @example
   * ledger.risk.entryHalts() // [{ chainId: null, rule: 'maxDrawdownPct', reason: 'drawdown 12.4% …', … }]
   */
  entryHalts(): EntryHalt[]
  /**
   * The halt that refuses a buy on `chainId` (the all-chains one first), if any. Read from the
   * database each time: a halt written by another process is seen at the next check.
   */
  entryHaltFor(chainId: number): EntryHalt | undefined
  /**
   * Latches an entry halt (an `entry_halt` event in the same commit). One in force for the same
   * scope and rule keeps its first reason: `latched` is then false and `halt` the earlier one.
   *
   * @example
   * ledger.risk.haltEntries({ chainId: 31337, rule: 'maxDailyRealizedLoss', reason: '…', figures: {} })
   */
  haltEntries(halt: Omit<EntryHalt, 'atMs'>): { halt: EntryHalt; latched: boolean }
  /** Every scope's equity peak. */
  equityPeaks(): EquityPeak[]
  /**
   * Records one observation of PnL per scope at `atMs` (notional, signed) and returns each scope's
   * peak after it. A scope without a peak starts one at this observation. Nothing is written for a
   * scope whose PnL and peak did not change.
   */
  observeEquity(observations: readonly { chainId: number | null; pnl: bigint }[], atMs: number): EquityPeak[]
  /**
   * Realized PnL per chain (notional, signed) of the live fills and the position adjustments the
   * ledger recorded at or after `sinceMs` (the ledger's clock, as the notional limits count: local
   * chains' clocks may be moved). Incremental: after the first call for a `sinceMs`, a call reads
   * only the fills recorded since (a reversed fill makes it read the period again).
   */
  realizedSince(sinceMs: number): Map<number, bigint>
  /** Realized PnL per chain (notional, signed) of every position since the ledger began. */
  realizedPnlByChain(): Map<number, bigint>
  /** When an operator last resumed (`stockroute resume`, the control API), or null. */
  lastResumeMs(): number | null
}

/** 18: the decimals of the notional the limits compare (see risk.ts). */
const notionalDecimals = 18

/** A signed asset amount of `decimals` decimals as 18-decimal notional (toward zero beyond 18). */
export function signedNotional(amount: bigint, decimals: number): bigint {
  if (decimals <= notionalDecimals) return amount * 10n ** BigInt(notionalDecimals - decimals)
  return amount / 10n ** BigInt(decimals - notionalDecimals)
}

type HaltRow = { chain_id: number; rule: EntryHaltRule; reason: string; figures: string; at_ms: number }
type PeakRow = {
  chain_id: number
  peak_pnl: string
  peak_at_ms: number
  last_pnl: string
  last_at_ms: number
  since_ms: number
}
type RealizedRow = { id: number; chain_id: number; asset_decimals: number; realized_pnl: string }

const scopeOf = (chainId: number): number | null => (chainId === 0 ? null : chainId)
const columnOf = (chainId: number | null): number =>
  chainId === null ? 0 : safeInteger(chainId, 'chainId', 1)

const toHalt = (row: HaltRow): EntryHalt => ({
  chainId: scopeOf(row.chain_id),
  rule: row.rule,
  reason: row.reason,
  figures: JSON.parse(row.figures) as Record<string, string>,
  atMs: row.at_ms,
})

const toPeak = (row: PeakRow): EquityPeak => ({
  chainId: scopeOf(row.chain_id),
  peakPnl: textToInt(row.peak_pnl, 'equity_peaks.peak_pnl'),
  peakAtMs: row.peak_at_ms,
  lastPnl: textToInt(row.last_pnl, 'equity_peaks.last_pnl'),
  lastAtMs: row.last_at_ms,
  sinceMs: row.since_ms,
})

/**
 * The entry halts' part of the risk repository, and `clear` for its resume (which runs it in the
 * transaction that releases the kill switch).
 */
export function createEntryHaltsRepository({ db, now }: RepositoryContext): EntryHaltsRepository & {
  /** Deletes every entry halt and equity peak (a resume): call it inside the resume's transaction. */
  clear(): void
} {
  const selectHalts = db.prepare<[], HaltRow>('SELECT * FROM entry_halts ORDER BY chain_id, rule')
  const selectHaltFor = db.prepare<[number], HaltRow>(
    'SELECT * FROM entry_halts WHERE chain_id IN (0, ?) ORDER BY chain_id, rule LIMIT 1',
  )
  const selectHalt = db.prepare<[number, string], HaltRow>(
    'SELECT * FROM entry_halts WHERE chain_id = ? AND rule = ?',
  )
  const insertHalt = db.prepare<[number, string, string, string, number]>(
    'INSERT OR IGNORE INTO entry_halts (chain_id, rule, reason, figures, at_ms) VALUES (?, ?, ?, ?, ?)',
  )
  const selectPeaks = db.prepare<[], PeakRow>('SELECT * FROM equity_peaks ORDER BY chain_id')
  const selectPeak = db.prepare<[number], PeakRow>('SELECT * FROM equity_peaks WHERE chain_id = ?')
  const upsertPeak = db.prepare<[PeakRow]>(
    `INSERT INTO equity_peaks (chain_id, peak_pnl, peak_at_ms, last_pnl, last_at_ms, since_ms)
     VALUES (@chain_id, @peak_pnl, @peak_at_ms, @last_pnl, @last_at_ms, @since_ms)
     ON CONFLICT (chain_id) DO UPDATE SET peak_pnl = excluded.peak_pnl, peak_at_ms = excluded.peak_at_ms,
       last_pnl = excluded.last_pnl, last_at_ms = excluded.last_at_ms`,
  )
  const selectFillsSince = db.prepare<[number, number], RealizedRow>(
    `SELECT id, chain_id, asset_decimals, realized_pnl FROM fills
     WHERE id > ? AND recorded_at_ms >= ? AND reversed_at_ms IS NULL AND realized_pnl <> '0'`,
  )
  const selectAllFillsSince = db.prepare<[number], RealizedRow>(
    `SELECT id, chain_id, asset_decimals, realized_pnl FROM fills
     WHERE recorded_at_ms >= ? AND reversed_at_ms IS NULL AND realized_pnl <> '0'`,
  )
  const selectLastFillId = db.prepare<[], { id: number | null }>('SELECT max(id) AS id FROM fills')
  const selectLastEventId = db.prepare<[], { id: number | null }>('SELECT max(id) AS id FROM events')
  const selectReversalsAfter = db.prepare<[number], { id: number }>(
    "SELECT id FROM events WHERE id > ? AND kind = 'fill_reversed' LIMIT 1",
  )
  const selectAdjustmentsSince = db.prepare<[number], Omit<RealizedRow, 'id'>>(
    `SELECT a.chain_id, coalesce(a.asset_decimals, p.asset_decimals) AS asset_decimals, a.realized_pnl
     FROM position_adjustments a LEFT JOIN positions p ON p.chain_id = a.chain_id AND p.token_address = a.token_address
     WHERE a.recorded_at_ms >= ? AND a.realized_pnl <> '0'`,
  )
  const selectPositionsRealized = db.prepare<[], Omit<RealizedRow, 'id'>>(
    "SELECT chain_id, asset_decimals, realized_pnl FROM positions WHERE realized_pnl <> '0'",
  )
  const selectLastResume = db.prepare<[], { at_ms: number | null }>(
    "SELECT max(at_ms) AS at_ms FROM kill_switch_events WHERE action = 'resume'",
  )

  const add = (sums: Map<number, bigint>, rows: Iterable<Omit<RealizedRow, 'id'>>) => {
    for (const row of rows) {
      const value = signedNotional(textToInt(row.realized_pnl, 'realized_pnl'), row.asset_decimals ?? 0)
      sums.set(row.chain_id, (sums.get(row.chain_id) ?? 0n) + value)
    }
  }

  // The fills' part of realizedSince, kept between calls: the period's sums and how far they read.
  let counted:
    | { sinceMs: number; fillCursor: number; eventCursor: number; sums: Map<number, bigint> }
    | undefined
  const fillsSince = (sinceMs: number): Map<number, bigint> => {
    const reversed = counted !== undefined && selectReversalsAfter.get(counted.eventCursor) !== undefined
    if (counted === undefined || counted.sinceMs !== sinceMs || reversed) {
      // Synchronous reads on the one connection: nothing is recorded between them.
      const eventCursor = selectLastEventId.get()?.id ?? 0
      const fillCursor = selectLastFillId.get()?.id ?? 0
      const sums = new Map<number, bigint>()
      add(sums, selectAllFillsSince.all(sinceMs))
      counted = { sinceMs, fillCursor, eventCursor, sums }
      return sums
    }
    const eventCursor = selectLastEventId.get()?.id ?? counted.eventCursor
    const fresh = selectFillsSince.all(counted.fillCursor, sinceMs)
    add(counted.sums, fresh)
    counted.fillCursor = Math.max(counted.fillCursor, selectLastFillId.get()?.id ?? 0)
    counted.eventCursor = eventCursor
    return counted.sums
  }

  const haltEntries = db.transaction((halt: Omit<EntryHalt, 'atMs'>) => {
    const chain = columnOf(halt.chainId)
    const inserted = insertHalt.run(chain, halt.rule, halt.reason, JSON.stringify(halt.figures), now())
    const row = selectHalt.get(chain, halt.rule)
    if (!row) throw new Error('entry_halts: the halt was not stored')
    return { halt: toHalt(row), latched: inserted.changes === 1 }
  })

  const observe = db.transaction(
    (observations: readonly { chainId: number | null; pnl: bigint }[], atMs: number) =>
      observations.map(({ chainId, pnl }) => {
        const chain = columnOf(chainId)
        const row = selectPeak.get(chain)
        const before = row ? toPeak(row) : undefined
        if (before && pnl === before.lastPnl && pnl <= before.peakPnl) return before
        const higher = before === undefined || pnl > before.peakPnl
        const next: PeakRow = {
          chain_id: chain,
          peak_pnl: intToText(higher ? pnl : before.peakPnl, 'peakPnl'),
          peak_at_ms: higher ? atMs : before.peakAtMs,
          last_pnl: intToText(pnl, 'pnl'),
          last_at_ms: atMs,
          since_ms: before?.sinceMs ?? atMs,
        }
        upsertPeak.run(next)
        return toPeak(next)
      }),
  )

  return {
    entryHalts: () => selectHalts.all().map(toHalt),
    entryHaltFor(chainId) {
      const row = selectHaltFor.get(safeInteger(chainId, 'chainId', 1))
      return row ? toHalt(row) : undefined
    },
    haltEntries(halt) {
      if (typeof halt.reason !== 'string' || halt.reason.trim() === '')
        throw new TypeError('haltEntries(halt): the reason says which limit was reached')
      return haltEntries.immediate(halt)
    },
    equityPeaks: () => selectPeaks.all().map(toPeak),
    observeEquity: (observations, atMs) => observe.immediate(observations, safeInteger(atMs, 'atMs')),
    realizedSince(sinceMs) {
      const since = safeInteger(sinceMs, 'sinceMs')
      const sums = new Map(fillsSince(since))
      add(sums, selectAdjustmentsSince.all(since))
      return sums
    },
    realizedPnlByChain() {
      const sums = new Map<number, bigint>()
      add(sums, selectPositionsRealized.all())
      return sums
    },
    lastResumeMs: () => selectLastResume.get()?.at_ms ?? null,
    clear() {
      db.prepare('DELETE FROM entry_halts').run()
      db.prepare('DELETE FROM equity_peaks').run()
    },
  }
}
