import type { Address } from 'viem'
import { canonicalAddress, intToText, LedgerInputError, safeInteger, uintToText } from './codec.js'
import type { RepositoryContext } from './context.js'
import { corporateActionAttribution } from './ledgerDays.js'
import { rebuildLedgerFigures } from './ledgerFigures.js'

export * from './positionAccounting.js'

import {
  type ApplyPositionAdjustmentResult,
  type PositionAdjustment,
  type PositionEntry,
  PositionError,
  type PositionMismatch,
  type PositionRecord,
  type PositionState,
  type PositionTokenInfo,
} from './positionAccounting.js'

import {
  type AdjustmentRow,
  checkTokenInfo,
  createPositionWriter,
  type PositionRow,
  positionParameters,
  type RenameRow,
  recordOfRow,
  renameRecordOfRow,
  sameState,
  stateOfRow,
  upsertPositionStatement,
} from './positionRows.js'

// ---------------------------------------------------------------------------------------------
// Ticker changes

/** A ticker change of a held token (a corporate action): the position keeps everything but its name. */
export type PositionRename = {
  chainId: number
  tokenAddress: Address
  /** The new ticker. */
  ticker: string
  /** Why (shown in reports); default `ticker change OLD → NEW`. */
  reason?: string | undefined
  /** An external id (the corporate action record's id): a rename with the same reference is applied once. */
  reference?: string | undefined
}

/** A stored ticker change. */
export type PositionRenameRecord = {
  id: number
  /** Ledger order, shared with fills and adjustments. */
  seq: number
  chainId: number
  tokenAddress: Address
  fromTicker: string
  toTicker: string
  reference: string | null
  reason: string
  recordedAtMs: number
}

/** What {@link PositionsRepository.renamePosition} did. */
export type RenamePositionResult =
  | { status: 'recorded'; renameId: number; position: PositionRecord }
  /** A rename with this reference was applied before; nothing changed. */
  | { status: 'duplicate'; renameId: number }

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
  const selectOne = db.prepare<[number, string], PositionRow>(
    'SELECT * FROM positions WHERE chain_id = ? AND token_address = ?',
  )
  const selectAll = db.prepare<[number | null, number | null], PositionRow>(
    'SELECT * FROM positions WHERE (? IS NULL OR chain_id = ?) ORDER BY chain_id, token_address',
  )
  const selectByReference = db.prepare<[string], { id: number }>(
    'SELECT id FROM position_adjustments WHERE reference = ?',
  )
  const insertAdjustment = db.prepare<
    [
      {
        seq: number
        chain_id: number
        token_address: string
        kind: string
        ratio_numerator: string | null
        ratio_denominator: string | null
        quantity: string | null
        amount: string | null
        ticker: string | null
        exchange: number | null
        token_kind: string | null
        asset_token: string | null
        asset_decimals: number | null
        reference: string | null
        reason: string
        realized_pnl: string
        now: number
      },
    ]
  >(
    `INSERT INTO position_adjustments (seq, chain_id, token_address, kind, ratio_numerator, ratio_denominator,
       quantity, amount, ticker, exchange, token_kind, asset_token, asset_decimals, reference, reason, realized_pnl,
       recorded_at_ms)
     VALUES (@seq, @chain_id, @token_address, @kind, @ratio_numerator, @ratio_denominator, @quantity, @amount,
       @ticker, @exchange, @token_kind, @asset_token, @asset_decimals, @reference, @reason, @realized_pnl, @now)`,
  )
  const updateLocked = db.prepare<[string, number, number, string]>(
    'UPDATE positions SET locked = ?, updated_at_ms = ? WHERE chain_id = ? AND token_address = ?',
  )
  const selectRenames = db.prepare<[number | null, number | null, string | null, string | null], RenameRow>(
    `SELECT * FROM position_renames WHERE (? IS NULL OR chain_id = ?) AND (? IS NULL OR token_address = ?)
     ORDER BY seq`,
  )
  const selectRenameByReference = db.prepare<[string], RenameRow>(
    'SELECT * FROM position_renames WHERE reference = ?',
  )
  const selectAdjustmentByReference = db.prepare<[string], AdjustmentRow>(
    'SELECT * FROM position_adjustments WHERE reference = ?',
  )
  const insertRename = db.prepare<[Omit<RenameRow, 'id'>]>(
    `INSERT INTO position_renames (seq, chain_id, token_address, from_ticker, to_ticker, reference, reason,
       recorded_at_ms)
     VALUES (@seq, @chain_id, @token_address, @from_ticker, @to_ticker, @reference, @reason, @recorded_at_ms)`,
  )
  const deletePosition = db.prepare<[number, string]>(
    'DELETE FROM positions WHERE chain_id = ? AND token_address = ?',
  )
  const upsert = upsertPositionStatement(db)

  const adjust = db.transaction((adjustment: PositionAdjustment): ApplyPositionAdjustmentResult => {
    const chainId = safeInteger(adjustment.chainId, 'chainId', 1)
    const tokenAddress = canonicalAddress(adjustment.tokenAddress, 'tokenAddress')
    if (typeof adjustment.reason !== 'string' || adjustment.reason === '')
      throw new LedgerInputError('reason', adjustment.reason, 'is empty: say why the position changes.')
    const reference = adjustment.reference ?? null
    if (reference !== null) {
      const existing = selectByReference.get(reference)
      if (existing) return { status: 'duplicate', adjustmentId: existing.id }
    }
    const seq = writer.nextSeq()
    const at = { seq, chainId, tokenAddress }
    let entry: PositionEntry
    let columns: {
      ratio_numerator: string | null
      ratio_denominator: string | null
      quantity: string | null
      amount: string | null
      token: PositionTokenInfo | undefined
    }
    switch (adjustment.kind) {
      case 'split':
        entry = { ...at, kind: 'split', numerator: adjustment.numerator, denominator: adjustment.denominator }
        columns = {
          ratio_numerator: uintToText(adjustment.numerator, 'numerator'),
          ratio_denominator: uintToText(adjustment.denominator, 'denominator'),
          quantity: null,
          amount: null,
          token: undefined,
        }
        break
      case 'delisting': {
        const compensation = adjustment.compensation ?? 0n
        entry = { ...at, kind: 'delisting', compensation }
        columns = {
          ratio_numerator: null,
          ratio_denominator: null,
          quantity: null,
          amount: uintToText(compensation, 'compensation'),
          token: undefined,
        }
        break
      }
      case 'transfer': {
        const token = adjustment.token ? checkTokenInfo(adjustment.token, 'token') : undefined
        const cost = adjustment.cost ?? 0n
        entry = { ...at, kind: 'transfer', quantity: adjustment.quantity, cost, token }
        columns = {
          ratio_numerator: null,
          ratio_denominator: null,
          quantity: intToText(adjustment.quantity, 'quantity'),
          amount: uintToText(cost, 'cost'),
          token,
        }
        break
      }
      default:
        throw new LedgerInputError(
          'kind',
          (adjustment as { kind: unknown }).kind,
          'must be split, delisting or transfer.',
        )
    }
    const recordedAt = now()
    const { record: position, realized } = writer.apply(entry, corporateActionAttribution(recordedAt))
    const result = insertAdjustment.run({
      seq,
      chain_id: chainId,
      token_address: tokenAddress,
      kind: adjustment.kind,
      ratio_numerator: columns.ratio_numerator,
      ratio_denominator: columns.ratio_denominator,
      quantity: columns.quantity,
      amount: columns.amount,
      ticker: columns.token?.ticker ?? null,
      exchange: columns.token?.exchange ?? null,
      token_kind: columns.token?.tokenKind ?? null,
      asset_token: columns.token?.assetToken ?? null,
      asset_decimals: columns.token?.assetDecimals ?? null,
      reference,
      reason: adjustment.reason,
      realized_pnl: realized.toString(),
      now: recordedAt,
    })
    return { status: 'recorded', adjustmentId: Number(result.lastInsertRowid), position }
  })

  const rename = db.transaction((change: PositionRename): RenamePositionResult => {
    const chainId = safeInteger(change.chainId, 'chainId', 1)
    const tokenAddress = canonicalAddress(change.tokenAddress, 'tokenAddress')
    if (
      typeof change.ticker !== 'string' ||
      change.ticker.trim() === '' ||
      change.ticker !== change.ticker.trim()
    )
      throw new LedgerInputError(
        'ticker',
        change.ticker,
        'must be a non-empty ticker without surrounding spaces.',
      )
    if (change.reason !== undefined && (typeof change.reason !== 'string' || change.reason === ''))
      throw new LedgerInputError('reason', change.reason, 'is empty: say why the position is renamed.')
    const reference = change.reference ?? null
    if (reference !== null) {
      if (typeof reference !== 'string' || reference === '')
        throw new LedgerInputError('reference', reference, 'must be a non-empty string.')
      const existing = selectRenameByReference.get(reference)
      if (existing) return { status: 'duplicate', renameId: existing.id }
    }
    const current = writer.load(chainId, tokenAddress)
    if (!current)
      throw new PositionError({
        code: 'NO_POSITION',
        shortMessage: `No position in ${tokenAddress} on chain ${chainId} to rename to ${change.ticker}: nothing to do for a token the ledger never held.`,
        details: { chainId, tokenAddress },
      })
    const seq = writer.nextSeq()
    const recordedAt = now()
    const { record: position } = writer.apply(
      { seq, chainId, tokenAddress, kind: 'rename', ticker: change.ticker },
      corporateActionAttribution(recordedAt),
    )
    const result = insertRename.run({
      seq,
      chain_id: chainId,
      token_address: tokenAddress,
      from_ticker: current.ticker,
      to_ticker: change.ticker,
      reference,
      reason: change.reason ?? `ticker change ${current.ticker} → ${change.ticker}`,
      recorded_at_ms: recordedAt,
    })
    return { status: 'recorded', renameId: Number(result.lastInsertRowid), position }
  })

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
    applyPositionAdjustment: (adjustment) => adjust.immediate(adjustment),
    renamePosition: (change) => rename.immediate(change),
    listRenames(filter = {}) {
      const chainId = filter.chainId ?? null
      const token =
        filter.tokenAddress === undefined ? null : canonicalAddress(filter.tokenAddress, 'tokenAddress')
      return selectRenames.all(chainId, chainId, token, token).map(renameRecordOfRow)
    },
    findAppliedReference(reference) {
      const adjustment = selectAdjustmentByReference.get(reference)
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
      const renamed = selectRenameByReference.get(reference)
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
