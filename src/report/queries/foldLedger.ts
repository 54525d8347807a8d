import type Database from 'better-sqlite3'
import type { PositionEntry, PositionState } from '../../store/positionAccounting.js'
import { applyPositionEntry } from '../../store/positionAccounting.js'
import {
  type AdjustmentRow,
  adjustmentEntryOfRow,
  type FillEntryRow,
  fillEntryOfRow,
  type RenameRow,
  renameEntryOfRow,
} from '../../store/positionRows.js'

// The position fold of src/store/positionAccounting.ts, replayed by the reports so that every
// realized figure they break down (per day, per strategy) is exactly the one the positions table
// holds: same entries (live fills, adjustments, renames), same order (seq), same function.

/** One fill, adjustment or rename as it changed its position, with what a report attributes to it. */
export type LedgerStep = {
  seq: number
  kind: PositionEntry['kind']
  chainId: number
  tokenAddress: string
  /** The position's ticker after the step (a rename's new one). */
  ticker: string
  assetToken: string
  assetDecimals: number
  /** Fills: block time × 1000; adjustments and renames: when the ledger recorded them. */
  atMs: number
  /** The strategy of a fill's execution; null for fills without one and for every adjustment. */
  strategy: string | null
  /** Asset base units realized by this step (signed). */
  realized: bigint
  /** Fills: fee in asset base units (already inside the amounts); 0 for adjustments. */
  fee: bigint
  /** Fills: the asset side (paid on a buy, received on a sell); 0 for adjustments. */
  assetAmount: bigint
  /** Fills: the token side in token base units; 0 for adjustments. */
  stockAmount: bigint
  isBuy: boolean
  /** The position after the step. */
  after: PositionState
}

type FillFoldRow = FillEntryRow & { fee_amount: string; block_time: number; strategy: string | null }

/**
 * Replays the ledger's position fold (live fills, position adjustments and renames in `seq` order,
 * through `applyPositionEntry`) on `chainId` (all chains when undefined), calling `onStep` with each
 * step and the PnL it realized. `inScope` skips whole tokens (each token's fold is independent, so
 * skipping one never changes another). Returns the final positions by `${chainId}:${tokenAddress}`,
 * equal to the `positions` table's.
 *
 * @example
 * const positions = foldLedger(ledger.database, { chainId: 31337 }, (step) => {
 *   if (step.kind === 'fill') console.log(step.ticker, step.realized)
 * })
 */
export function foldLedger(
  database: Database.Database,
  scope: {
    chainId?: number | undefined
    inScope?: ((chainId: number, token: string) => boolean) | undefined
  },
  onStep: (step: LedgerStep) => void,
): Map<string, PositionState> {
  const chain = scope.chainId ?? null
  // Adjustments and renames are few: load them, then merge them into the fills stream by seq.
  const others: { seq: number; row: AdjustmentRow | RenameRow; rename: boolean }[] = [
    ...database
      .prepare<[number | null, number | null], AdjustmentRow>(
        'SELECT * FROM position_adjustments WHERE (? IS NULL OR chain_id = ?) ORDER BY seq',
      )
      .all(chain, chain)
      .map((row) => ({ seq: row.seq, row, rename: false })),
    ...database
      .prepare<[number | null, number | null], RenameRow>(
        'SELECT * FROM position_renames WHERE (? IS NULL OR chain_id = ?) ORDER BY seq',
      )
      .all(chain, chain)
      .map((row) => ({ seq: row.seq, row, rename: true })),
  ].sort((a, b) => a.seq - b.seq)
  const fills = database
    .prepare<[number | null, number | null], FillFoldRow>(
      `SELECT f.seq, f.chain_id, f.stock_token, f.asset_token, f.asset_decimals, f.token_kind, f.ticker, f.exchange,
         f.is_buy, f.amount_in, f.amount_out, f.fee_amount, f.block_time, e.strategy
       FROM fills f LEFT JOIN executions e ON e.id = f.execution_id
       WHERE f.reversed_at_ms IS NULL AND (? IS NULL OR f.chain_id = ?) ORDER BY f.seq`,
    )
    .iterate(chain, chain)
  const positions = new Map<string, PositionState>()
  const inScope = scope.inScope ?? (() => true)
  let next = 0

  const apply = (entry: PositionEntry, extra: Pick<LedgerStep, 'atMs' | 'strategy' | 'fee'>) => {
    if (!inScope(entry.chainId, entry.tokenAddress)) return
    const key = `${entry.chainId}:${entry.tokenAddress}`
    const before = positions.get(key)
    const after = applyPositionEntry(before, entry)
    positions.set(key, after)
    const isFill = entry.kind === 'fill'
    onStep({
      seq: entry.seq,
      kind: entry.kind,
      chainId: entry.chainId,
      tokenAddress: entry.tokenAddress,
      ticker: after.ticker,
      assetToken: after.assetToken,
      assetDecimals: after.assetDecimals,
      realized: after.realizedPnl - (before?.realizedPnl ?? 0n),
      assetAmount: isFill ? entry.assetAmount : 0n,
      stockAmount: isFill ? entry.stockAmount : 0n,
      isBuy: isFill ? entry.isBuy : false,
      after,
      ...extra,
    })
  }
  const applyOthersBefore = (seq: number) => {
    for (let other = others[next]; other !== undefined && other.seq < seq; other = others[++next]) {
      const entry = other.rename
        ? renameEntryOfRow(other.row as RenameRow)
        : adjustmentEntryOfRow(other.row as AdjustmentRow)
      apply(entry, { atMs: other.row.recorded_at_ms, strategy: null, fee: 0n })
    }
  }
  for (const row of fills) {
    applyOthersBefore(row.seq)
    apply(fillEntryOfRow(row), {
      atMs: row.block_time * 1000,
      strategy: row.strategy,
      fee: BigInt(row.fee_amount),
    })
  }
  applyOthersBefore(Number.POSITIVE_INFINITY)
  return positions
}
