import type Database from 'better-sqlite3'
import type { Address } from 'viem'
import { type ExchangeCode, isExchangeCode, type TokenKind } from '../domain/markets.js'
import { toAssetAmount } from '../domain/units.js'
import {
  canonicalAddress,
  intToText,
  LedgerInputError,
  safeInteger,
  textToInt,
  textToUint,
  uintToText,
} from './codec.js'
import type { RepositoryContext } from './context.js'

export * from './positionAccounting.js'

import {
  type ApplyPositionAdjustmentResult,
  applyPositionEntry,
  averagePrice,
  type PositionAdjustment,
  type PositionEntry,
  PositionError,
  type PositionMismatch,
  type PositionRecord,
  type PositionState,
  type PositionTokenInfo,
} from './positionAccounting.js'

// ---------------------------------------------------------------------------------------------
// Rows

type PositionRow = {
  chain_id: number
  token_address: string
  ticker: string
  exchange: number
  token_kind: TokenKind
  asset_token: string
  asset_decimals: number
  balance: string
  locked: string
  cost_basis: string
  avg_price: string
  realized_pnl: string
  last_seq: number
  updated_at_ms: number
}

type AdjustmentRow = {
  id: number
  seq: number
  chain_id: number
  token_address: string
  kind: 'split' | 'delisting' | 'transfer'
  ratio_numerator: string | null
  ratio_denominator: string | null
  quantity: string | null
  amount: string | null
  ticker: string | null
  exchange: number | null
  token_kind: TokenKind | null
  asset_token: string | null
  asset_decimals: number | null
  reference: string | null
  reason: string
  recorded_at_ms: number
}

type RenameRow = {
  id: number
  seq: number
  chain_id: number
  token_address: string
  from_ticker: string
  to_ticker: string
  reference: string | null
  reason: string
  recorded_at_ms: number
}

type FillEntryRow = {
  seq: number
  chain_id: number
  stock_token: string
  asset_token: string
  asset_decimals: number
  token_kind: TokenKind
  ticker: string
  exchange: number
  is_buy: number
  amount_in: string
  amount_out: string
}

function stateOfRow(row: PositionRow): PositionState {
  return {
    chainId: row.chain_id,
    tokenAddress: row.token_address as Address,
    ticker: row.ticker,
    exchange: row.exchange as ExchangeCode,
    tokenKind: row.token_kind,
    assetToken: row.asset_token as Address,
    assetDecimals: row.asset_decimals,
    balance: textToInt(row.balance, 'positions.balance'),
    costBasis: textToInt(row.cost_basis, 'positions.cost_basis'),
    realizedPnl: textToInt(row.realized_pnl, 'positions.realized_pnl'),
    lastSeq: row.last_seq,
  }
}

function recordOfRow(row: PositionRow): PositionRecord {
  const state = stateOfRow(row)
  const locked = textToUint(row.locked, 'positions.locked')
  return {
    ...state,
    locked,
    available: state.balance - locked,
    avgPrice: toAssetAmount(textToUint(row.avg_price, 'positions.avg_price')),
    updatedAtMs: row.updated_at_ms,
  }
}

/** A fill row as a fold entry. Buy: amount in is asset, amount out stock; sell: the other way round. */
export function fillEntryOfRow(row: FillEntryRow): PositionEntry {
  const amountIn = textToUint(row.amount_in, 'fills.amount_in')
  const amountOut = textToUint(row.amount_out, 'fills.amount_out')
  const isBuy = row.is_buy === 1
  return {
    seq: row.seq,
    chainId: row.chain_id,
    tokenAddress: row.stock_token as Address,
    kind: 'fill',
    token: {
      ticker: row.ticker,
      exchange: row.exchange as ExchangeCode,
      tokenKind: row.token_kind,
      assetToken: row.asset_token as Address,
      assetDecimals: row.asset_decimals,
    },
    isBuy,
    stockAmount: isBuy ? amountOut : amountIn,
    assetAmount: isBuy ? amountIn : amountOut,
  }
}

function adjustmentEntryOfRow(row: AdjustmentRow): PositionEntry {
  const at = { seq: row.seq, chainId: row.chain_id, tokenAddress: row.token_address as Address }
  const field = (name: string) => `position_adjustments.${name}`
  switch (row.kind) {
    case 'split':
      return {
        ...at,
        kind: 'split',
        numerator: textToUint(row.ratio_numerator, field('ratio_numerator')),
        denominator: textToUint(row.ratio_denominator, field('ratio_denominator')),
      }
    case 'delisting':
      return { ...at, kind: 'delisting', compensation: textToUint(row.amount ?? '0', field('amount')) }
    case 'transfer':
      return {
        ...at,
        kind: 'transfer',
        quantity: textToInt(row.quantity, field('quantity')),
        cost: textToUint(row.amount, field('amount')),
        token:
          row.ticker === null ||
          row.exchange === null ||
          row.token_kind === null ||
          row.asset_token === null ||
          row.asset_decimals === null
            ? undefined
            : {
                ticker: row.ticker,
                exchange: row.exchange as ExchangeCode,
                tokenKind: row.token_kind,
                assetToken: row.asset_token as Address,
                assetDecimals: row.asset_decimals,
              },
      }
  }
}

function renameEntryOfRow(row: RenameRow): PositionEntry {
  return {
    seq: row.seq,
    chainId: row.chain_id,
    tokenAddress: row.token_address as Address,
    kind: 'rename',
    ticker: row.to_ticker,
  }
}

function renameRecordOfRow(row: RenameRow): PositionRenameRecord {
  return {
    id: row.id,
    seq: row.seq,
    chainId: row.chain_id,
    tokenAddress: row.token_address as Address,
    fromTicker: row.from_ticker,
    toTicker: row.to_ticker,
    reference: row.reference,
    reason: row.reason,
    recordedAtMs: row.recorded_at_ms,
  }
}

function sameState(a: PositionState | undefined, b: PositionState | undefined): boolean {
  if (!a || !b) return a === b
  return (
    a.balance === b.balance &&
    a.costBasis === b.costBasis &&
    a.realizedPnl === b.realizedPnl &&
    a.lastSeq === b.lastSeq &&
    a.ticker === b.ticker &&
    a.exchange === b.exchange &&
    a.tokenKind === b.tokenKind &&
    a.assetToken === b.assetToken &&
    a.assetDecimals === b.assetDecimals
  )
}

// ---------------------------------------------------------------------------------------------
// Shared writer (fills and adjustments go through it, inside their own write transaction)

/** @internal The position table as the fills and positions repositories write it. */
export type PositionWriter = {
  /** The next ledger sequence number, shared by fills and adjustments. Call inside a write transaction. */
  nextSeq(): number
  load(chainId: number, tokenAddress: Address): PositionState | undefined
  /** Applies an entry to the stored position and saves it; returns the stored record. */
  apply(entry: PositionEntry): PositionRecord
}

/** @internal */
export function createPositionWriter({ db, now }: RepositoryContext): PositionWriter {
  const selectSeq = db.prepare<[], { seq: number }>(
    `SELECT max((SELECT coalesce(max(seq), 0) FROM fills), (SELECT coalesce(max(seq), 0) FROM position_adjustments),
       (SELECT coalesce(max(seq), 0) FROM position_renames)) + 1 AS seq`,
  )
  const selectOne = db.prepare<[number, string], PositionRow>(
    'SELECT * FROM positions WHERE chain_id = ? AND token_address = ?',
  )
  const upsert = upsertPositionStatement(db)
  return {
    nextSeq: () => (selectSeq.get() as { seq: number }).seq,
    load(chainId, tokenAddress) {
      const row = selectOne.get(chainId, tokenAddress)
      return row ? stateOfRow(row) : undefined
    },
    apply(entry) {
      const row = selectOne.get(entry.chainId, entry.tokenAddress)
      const next = applyPositionEntry(row ? stateOfRow(row) : undefined, entry)
      upsert.run(positionParameters(next, now()))
      return recordOfRow(selectOne.get(entry.chainId, entry.tokenAddress) as PositionRow)
    },
  }
}

type UpsertParameters = {
  chain_id: number
  token_address: string
  ticker: string
  exchange: number
  token_kind: string
  asset_token: string
  asset_decimals: number
  balance: string
  cost_basis: string
  avg_price: string
  realized_pnl: string
  last_seq: number
  now: number
}

function upsertPositionStatement(db: Database.Database) {
  return db.prepare<[UpsertParameters]>(
    `INSERT INTO positions (chain_id, token_address, ticker, exchange, token_kind, asset_token, asset_decimals,
       balance, locked, cost_basis, avg_price, realized_pnl, last_seq, updated_at_ms)
     VALUES (@chain_id, @token_address, @ticker, @exchange, @token_kind, @asset_token, @asset_decimals,
       @balance, '0', @cost_basis, @avg_price, @realized_pnl, @last_seq, @now)
     ON CONFLICT (chain_id, token_address) DO UPDATE SET
       ticker = excluded.ticker, exchange = excluded.exchange, token_kind = excluded.token_kind,
       asset_token = excluded.asset_token, asset_decimals = excluded.asset_decimals,
       balance = excluded.balance, cost_basis = excluded.cost_basis, avg_price = excluded.avg_price,
       realized_pnl = excluded.realized_pnl, last_seq = excluded.last_seq, updated_at_ms = excluded.updated_at_ms`,
  )
}

function positionParameters(state: PositionState, at: number): UpsertParameters {
  return {
    chain_id: state.chainId,
    token_address: state.tokenAddress,
    ticker: state.ticker,
    exchange: state.exchange,
    token_kind: state.tokenKind,
    asset_token: state.assetToken,
    asset_decimals: state.assetDecimals,
    balance: intToText(state.balance, 'balance'),
    cost_basis: intToText(state.costBasis, 'costBasis'),
    avg_price: uintToText(averagePrice(state), 'avgPrice'),
    realized_pnl: intToText(state.realizedPnl, 'realizedPnl'),
    last_seq: state.lastSeq,
    now: at,
  }
}

/** Checks token info handed in from outside. */
export function checkTokenInfo(token: PositionTokenInfo, field: string): PositionTokenInfo {
  if (typeof token.ticker !== 'string' || token.ticker === '')
    throw new LedgerInputError(`${field}.ticker`, token.ticker, 'must be a non-empty string.')
  if (typeof token.exchange !== 'number' || !isExchangeCode(token.exchange))
    throw new LedgerInputError(`${field}.exchange`, token.exchange, 'is not an exchange code: use 0, 1 or 3.')
  if (token.tokenKind !== 'stock' && token.tokenKind !== 'share')
    throw new LedgerInputError(`${field}.tokenKind`, token.tokenKind, "must be 'stock' or 'share'.")
  const assetDecimals = safeInteger(token.assetDecimals, `${field}.assetDecimals`)
  if (assetDecimals > 36)
    throw new LedgerInputError(`${field}.assetDecimals`, assetDecimals, 'must be at most 36.')
  return {
    ticker: token.ticker,
    exchange: token.exchange,
    tokenKind: token.tokenKind,
    assetToken: canonicalAddress(token.assetToken, `${field}.assetToken`),
    assetDecimals,
  }
}

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
        now: number
      },
    ]
  >(
    `INSERT INTO position_adjustments (seq, chain_id, token_address, kind, ratio_numerator, ratio_denominator,
       quantity, amount, ticker, exchange, token_kind, asset_token, asset_decimals, reference, reason, recorded_at_ms)
     VALUES (@seq, @chain_id, @token_address, @kind, @ratio_numerator, @ratio_denominator, @quantity, @amount,
       @ticker, @exchange, @token_kind, @asset_token, @asset_decimals, @reference, @reason, @now)`,
  )
  const updateLocked = db.prepare<[string, number, number, string]>(
    'UPDATE positions SET locked = ?, updated_at_ms = ? WHERE chain_id = ? AND token_address = ?',
  )
  const selectFillEntries = db.prepare<[], FillEntryRow>(
    `SELECT seq, chain_id, stock_token, asset_token, asset_decimals, token_kind, ticker, exchange, is_buy,
       amount_in, amount_out FROM fills ORDER BY seq`,
  )
  const selectAdjustmentEntries = db.prepare<[], AdjustmentRow>(
    'SELECT * FROM position_adjustments ORDER BY seq',
  )
  const selectRenameEntries = db.prepare<[], RenameRow>('SELECT * FROM position_renames ORDER BY seq')
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
    const position = writer.apply(entry)
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
      now: now(),
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
    const position = writer.apply({ seq, chainId, tokenAddress, kind: 'rename', ticker: change.ticker })
    const result = insertRename.run({
      seq,
      chain_id: chainId,
      token_address: tokenAddress,
      from_ticker: current.ticker,
      to_ticker: change.ticker,
      reference,
      reason: change.reason ?? `ticker change ${current.ticker} → ${change.ticker}`,
      recorded_at_ms: now(),
    })
    return { status: 'recorded', renameId: Number(result.lastInsertRowid), position }
  })

  const recompute = db.transaction((): { positions: PositionRecord[]; mismatches: PositionMismatch[] } => {
    const entries = [
      ...selectFillEntries.all().map(fillEntryOfRow),
      ...selectAdjustmentEntries.all().map(adjustmentEntryOfRow),
      ...selectRenameEntries.all().map(renameEntryOfRow),
    ].sort((a, b) => a.seq - b.seq)
    const key = (chainId: number, tokenAddress: string) => `${chainId}:${tokenAddress}`
    const computed = new Map<string, PositionState>()
    for (const entry of entries) {
      const k = key(entry.chainId, entry.tokenAddress)
      computed.set(k, applyPositionEntry(computed.get(k), entry))
    }
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
