import type { Address } from 'viem'
import { canonicalAddress, safeInteger, uintToText } from './codec.js'
import type { RepositoryContext } from './context.js'
import { rebuildLedgerFigures } from './ledgerFigures.js'
import {
  type ApplyPositionAdjustmentResult,
  type PositionAdjustment,
  PositionError,
  type PositionMismatch,
  type PositionRecord,
  type PositionState,
} from './positionAccounting.js'
import { createPositionAdjustments } from './positionAdjustments.js'
import { createPositionRenames, type PositionRename, type RenamePositionResult } from './positionRenames.js'
import {
  createPositionWriter,
  type PositionRenameRecord,
  type PositionRow,
  positionParameters,
  recordOfRow,
  sameState,
  stateOfRow,
  upsertPositionStatement,
} from './positionRows.js'

// ---------------------------------------------------------------------------------------------
// Applied references

/** A position change recorded under an external reference (see {@link PositionsRepository.findAppliedReference}). */
export type AppliedReference = {
  kind: 'split' | 'delisting' | 'transfer' | 'rename'
  /** Row id in `position_adjustments` (split, delisting, transfer) or `position_renames` (rename). */
  id: number
  seq: number
  chainId: number
  tokenAddress: Address
  reason: string
  recordedAtMs: number
}

// ---------------------------------------------------------------------------------------------
// Repository

/** The positions repository: per (chain id, token address), maintained with every fill and adjustment. */
export type PositionsRepository = {
  /**
   * @example
   * ledger.positions.getPosition(31337, aaplToken)?.balance // 10n
   */
  getPosition(chainId: number, tokenAddress: Address): PositionRecord | undefined
  /**
   * All positions (also flat ones, which keep their realized PnL), by chain and token.
   *
   * @example
   * ledger.positions.listPositions({ chainId: 31337 })
   */
  listPositions(filter?: { chainId?: number | undefined }): PositionRecord[]
  /**
   * Records a corporate action or transfer and applies it to the position in one transaction.
   * Idempotent by `reference`. Throws {@link PositionError}.
   *
   * @example
   * ledger.positions.applyPositionAdjustment({
   *   chainId: 31337, tokenAddress: aaplToken, kind: 'split', numerator: 2n, denominator: 1n,
   *   reason: '2-for-1 split', reference: corporateAction.id,
   * })
   */
  applyPositionAdjustment(adjustment: PositionAdjustment): ApplyPositionAdjustmentResult
  /**
   * Renames a position after a ticker change (balance, cost and PnL stay), recorded as a step of the
   * position fold so that `recomputePositions` keeps it. Idempotent by `reference`. A later fill
   * names the position after the ticker it was traded under. Throws {@link PositionError}
   * (`NO_POSITION`) when the ledger has no position in the token.
   *
   * @example
   * ledger.positions.renamePosition({ chainId: 31337, tokenAddress: fbToken, ticker: 'META', reference: record.id })
   */
  renamePosition(rename: PositionRename): RenamePositionResult
  /**
   * Ticker changes in ledger order, optionally of one chain or token.
   *
   * @example
   * ledger.positions.listRenames({ chainId: 31337 })[0]?.toTicker // 'META'
   */
  listRenames(filter?: {
    chainId?: number | undefined
    tokenAddress?: Address | undefined
  }): PositionRenameRecord[]
  /**
   * The adjustment or rename recorded under `reference` (a corporate action record id), if any:
   * lets a caller skip work for what was applied before.
   *
   * @example
   * if (ledger.positions.findAppliedReference(record.id)) return 'already applied'
   */
  findAppliedReference(reference: string): AppliedReference | undefined
  /**
   * Sets the locked part of a position (tokens committed to an in-flight sell or locked for a
   * corporate action). Locked is not derived from fills: recomputation keeps it.
   *
   * @example
   * ledger.positions.setLockedBalance(31337, aaplToken, 5n).available // balance - 5n
   */
  setLockedBalance(chainId: number, tokenAddress: Address, locked: bigint): PositionRecord
  /**
   * Rebuilds every position from the fills and adjustments in ledger order, reports where the
   * stored table differed, and rewrites it (locked balances kept), in one transaction.
   *
   * @example
   * const { mismatches } = ledger.positions.recomputePositions()
   * if (mismatches.length > 0) logger.error({ mismatches }, 'positions drifted from the ledger')
   */
  recomputePositions(): { positions: PositionRecord[]; mismatches: PositionMismatch[] }
}

/** Builds the positions repository over an open database (see `openLedger`). */
export function createPositionsRepository(context: RepositoryContext): PositionsRepository {
  const { db, now } = context
  const writer = createPositionWriter(context)
  const adjustments = createPositionAdjustments(context, writer)
  const renames = createPositionRenames(context, writer)
  const selectOne = db.prepare<[number, string], PositionRow>(
    'SELECT * FROM positions WHERE chain_id = ? AND token_address = ?',
  )
  const selectAll = db.prepare<[number | null, number | null], PositionRow>(
    'SELECT * FROM positions WHERE (? IS NULL OR chain_id = ?) ORDER BY chain_id, token_address',
  )
  const updateLocked = db.prepare<[string, number, number, string]>(
    'UPDATE positions SET locked = ?, updated_at_ms = ? WHERE chain_id = ? AND token_address = ?',
  )
  const deletePosition = db.prepare<[number, string]>(
    'DELETE FROM positions WHERE chain_id = ? AND token_address = ?',
  )
  const upsert = upsertPositionStatement(db)

  const recompute = db.transaction((): { positions: PositionRecord[]; mismatches: PositionMismatch[] } => {
    // The same replay rewrites what is derived from the fold: realized PnL per step, ledger_days.
    const computed = rebuildLedgerFigures(db)
    const key = (chainId: number, tokenAddress: string) => `${chainId}:${tokenAddress}`
    const stored = new Map(
      selectAll.all(null, null).map((row) => [key(row.chain_id, row.token_address), row]),
    )
    const mismatches: PositionMismatch[] = []
    for (const k of new Set([...computed.keys(), ...stored.keys()])) {
      const recomputed = computed.get(k)
      const storedRow = stored.get(k)
      const storedState = storedRow ? stateOfRow(storedRow) : undefined
      if (!sameState(storedState, recomputed)) {
        const some = (recomputed ?? storedState) as PositionState
        mismatches.push({
          chainId: some.chainId,
          tokenAddress: some.tokenAddress,
          stored: storedState,
          recomputed,
        })
        if (recomputed) upsert.run(positionParameters(recomputed, now()))
        else deletePosition.run(some.chainId, some.tokenAddress)
      }
    }
    return { positions: selectAll.all(null, null).map(recordOfRow), mismatches }
  })

  const lock = db.transaction((chainId: number, tokenAddress: Address, locked: bigint): PositionRecord => {
    const result = updateLocked.run(uintToText(locked, 'locked'), now(), chainId, tokenAddress)
    if (result.changes === 0)
      throw new PositionError({
        code: 'NO_POSITION',
        shortMessage: `No position in ${tokenAddress} on chain ${chainId} to lock tokens of.`,
        remedy: 'lock tokens only of a position the ledger holds: record its fills (or a transfer in) first',
        details: { chainId, tokenAddress },
      })
    return recordOfRow(selectOne.get(chainId, tokenAddress) as PositionRow)
  })

  return {
    getPosition(chainId, tokenAddress) {
      const row = selectOne.get(chainId, canonicalAddress(tokenAddress, 'tokenAddress'))
      return row ? recordOfRow(row) : undefined
    },
    listPositions(filter = {}) {
      const chainId = filter.chainId ?? null
      return selectAll.all(chainId, chainId).map(recordOfRow)
    },
    applyPositionAdjustment: adjustments.applyPositionAdjustment,
    renamePosition: renames.renamePosition,
    listRenames: renames.listRenames,
    findAppliedReference(reference) {
      const adjustment = adjustments.findAdjustmentByReference(reference)
      if (adjustment)
        return {
          kind: adjustment.kind,
          id: adjustment.id,
          seq: adjustment.seq,
          chainId: adjustment.chain_id,
          tokenAddress: adjustment.token_address as Address,
          reason: adjustment.reason,
          recordedAtMs: adjustment.recorded_at_ms,
        }
      const renamed = renames.findRenameByReference(reference)
      if (renamed)
        return {
          kind: 'rename',
          id: renamed.id,
          seq: renamed.seq,
          chainId: renamed.chain_id,
          tokenAddress: renamed.token_address as Address,
          reason: renamed.reason,
          recordedAtMs: renamed.recorded_at_ms,
        }
      return undefined
    },
    setLockedBalance: (chainId, tokenAddress, locked) =>
      lock.immediate(
        safeInteger(chainId, 'chainId', 1),
        canonicalAddress(tokenAddress, 'tokenAddress'),
        locked,
      ),
    recomputePositions: () => recompute.immediate(),
  }
}
