import type Database from 'better-sqlite3'
import {
  addStepToRows,
  corporateActionAttribution,
  dayStepOf,
  type LedgerDayRow,
  ledgerDaysWriter,
} from './ledgerDays.js'
import { type BackfillProgress, countRows } from './migrationProgress.js'
import { applyPositionEntry, type PositionEntry, type PositionState } from './positionAccounting.js'
import {
  type AdjustmentRow,
  adjustmentEntryOfRow,
  type FillEntryRow,
  fillEntryOfRow,
  type RenameRow,
  renameEntryOfRow,
} from './positionRows.js'

// The whole-ledger replay of the position fold: what `recomputePositions` compares the positions
// table with, and what rewrites the figures derived from the fold (each fill's and adjustment's
// realized PnL, `ledger_days`) after a reorg reversed fills or when migration 7 first computes them.

type FillFigureRow = FillEntryRow & {
  id: number
  fee_amount: string
  block_time: number
  realized_pnl: string
  slippage_vs_quote_cbps: number | null
  slippage_vs_market_cbps: number | null
  strategy: string | null
}

/**
 * Replays every live fill, adjustment and rename in `seq` order through `applyPositionEntry`,
 * stores what each realized where it differs from the stored value, and rewrites `ledger_days`.
 * Returns the positions the fold ends with, by `${chainId}:${tokenAddress}`. Call inside a write
 * transaction. Counts the live fills it folds through `progress` when given one (migration 7).
 *
 * @example
 * const positions = db.transaction(() => rebuildLedgerFigures(db)).immediate()
 */
export function rebuildLedgerFigures(
  db: Database.Database,
  progress?: BackfillProgress | undefined,
): Map<string, PositionState> {
  // Adjustments and renames are few: load them, then merge them into the stream of fills by seq.
  const others: { seq: number; row: AdjustmentRow | RenameRow; rename: boolean }[] = [
    ...db
      .prepare<[], AdjustmentRow & { realized_pnl: string }>(
        'SELECT * FROM position_adjustments ORDER BY seq',
      )
      .all()
      .map((row) => ({ seq: row.seq, row, rename: false })),
    ...db
      .prepare<[], RenameRow>('SELECT * FROM position_renames ORDER BY seq')
      .all()
      .map((row) => ({ seq: row.seq, row, rename: true })),
  ].sort((a, b) => a.seq - b.seq)
  const counted = progress
    ? countRows(
        progress,
        'backfilling realized PnL and daily figures',
        'fills',
        db.prepare<[], { n: number }>('SELECT count(*) AS n FROM fills WHERE reversed_at_ms IS NULL').get()
          ?.n ?? 0,
      )
    : undefined
  const fills = db
    .prepare<[], FillFigureRow>(
      `SELECT f.id, f.seq, f.chain_id, f.stock_token, f.asset_token, f.asset_decimals, f.token_kind, f.ticker,
         f.exchange, f.is_buy, f.amount_in, f.amount_out, f.fee_amount, f.block_time, f.realized_pnl,
         f.slippage_vs_quote_cbps, f.slippage_vs_market_cbps, e.strategy
       FROM fills f LEFT JOIN executions e ON e.id = f.execution_id
       WHERE f.reversed_at_ms IS NULL ORDER BY f.seq`,
    )
    .iterate()
  const positions = new Map<string, PositionState>()
  const rows = new Map<string, LedgerDayRow>()
  // Written after the read ends: one connection cannot write while a statement iterates.
  const fillUpdates: [string, number][] = []
  const adjustmentUpdates: [string, number][] = []
  const apply = (entry: PositionEntry, attribution: Parameters<typeof dayStepOf>[3]) => {
    const key = `${entry.chainId}:${entry.tokenAddress}`
    const before = positions.get(key)
    const after = applyPositionEntry(before, entry)
    positions.set(key, after)
    const step = dayStepOf(entry, before, after, attribution)
    addStepToRows(rows, step)
    return step.realized
  }
  let next = 0
  const applyOthersBefore = (seq: number) => {
    for (let other = others[next]; other !== undefined && other.seq < seq; other = others[++next]) {
      const attribution = corporateActionAttribution(other.row.recorded_at_ms)
      if (other.rename) {
        apply(renameEntryOfRow(other.row as RenameRow), attribution)
        continue
      }
      const row = other.row as AdjustmentRow & { realized_pnl: string }
      const realized = apply(adjustmentEntryOfRow(row), attribution).toString()
      if (realized !== row.realized_pnl) adjustmentUpdates.push([realized, row.id])
    }
  }
  for (const row of fills) {
    applyOthersBefore(row.seq)
    const realized = apply(fillEntryOfRow(row), {
      atMs: row.block_time * 1000,
      strategy: row.strategy,
      fee: BigInt(row.fee_amount),
      quoteSlippageCbps: row.slippage_vs_quote_cbps,
      marketSlippageCbps: row.slippage_vs_market_cbps,
    }).toString()
    if (realized !== row.realized_pnl) fillUpdates.push([realized, row.id])
    counted?.add()
  }
  applyOthersBefore(Number.POSITIVE_INFINITY)
  const setFill = db.prepare<[string, number]>('UPDATE fills SET realized_pnl = ? WHERE id = ?')
  for (const update of fillUpdates) setFill.run(...update)
  const setAdjustment = db.prepare<[string, number]>(
    'UPDATE position_adjustments SET realized_pnl = ? WHERE id = ?',
  )
  for (const update of adjustmentUpdates) setAdjustment.run(...update)
  ledgerDaysWriter(db).replaceAll(rows.values())
  counted?.end()
  return positions
}
