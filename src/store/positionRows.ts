import { type ExchangeCode, isExchangeCode, type TokenKind } from '@stockroute/client/domain/markets.js'
import { toAssetAmount } from '@stockroute/client/domain/units.js'
import type Database from 'better-sqlite3'
import type { Address } from 'viem'
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
import { dayStepOf, ledgerDaysWriter, type StepAttribution } from './ledgerDays.js'
import {
  applyPositionEntry,
  averagePrice,
  type PositionEntry,
  type PositionRecord,
  type PositionState,
  type PositionTokenInfo,
} from './positionAccounting.js'

// The positions' rows: their SQLite shapes, their conversion to fold entries and records, and the
// writer that fills, adjustments and renames share to update a position inside their transaction.

// ---------------------------------------------------------------------------------------------
// Rows

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

/** @internal */
export type PositionRow = {
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

/** @internal */
export type AdjustmentRow = {
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

/** @internal */
export type RenameRow = {
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

/** @internal */
export type FillEntryRow = {
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

/** @internal */
export function stateOfRow(row: PositionRow): PositionState {
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

/** @internal */
export function recordOfRow(row: PositionRow): PositionRecord {
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

/** @internal */
export function adjustmentEntryOfRow(row: AdjustmentRow): PositionEntry {
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

/** @internal */
export function renameEntryOfRow(row: RenameRow): PositionEntry {
  return {
    seq: row.seq,
    chainId: row.chain_id,
    tokenAddress: row.token_address as Address,
    kind: 'rename',
    ticker: row.to_ticker,
  }
}

/** @internal */
export function renameRecordOfRow(row: RenameRow): PositionRenameRecord {
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

/** @internal */
export function sameState(a: PositionState | undefined, b: PositionState | undefined): boolean {
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
  /**
   * Applies an entry to the stored position and saves it, and counts it in the daily figures
   * (`ledger_days`) under `attribution`; returns the stored record and the PnL the entry realized
   * (stored by the caller on the entry's own row).
   */
  apply(entry: PositionEntry, attribution: StepAttribution): { record: PositionRecord; realized: bigint }
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
  const days = ledgerDaysWriter(db)
  return {
    nextSeq: () => (selectSeq.get() as { seq: number }).seq,
    load(chainId, tokenAddress) {
      const row = selectOne.get(chainId, tokenAddress)
      return row ? stateOfRow(row) : undefined
    },
    apply(entry, attribution) {
      const row = selectOne.get(entry.chainId, entry.tokenAddress)
      const before = row ? stateOfRow(row) : undefined
      const next = applyPositionEntry(before, entry)
      upsert.run(positionParameters(next, now()))
      const step = dayStepOf(entry, before, next, attribution)
      days.add(step)
      return {
        record: recordOfRow(selectOne.get(entry.chainId, entry.tokenAddress) as PositionRow),
        realized: step.realized,
      }
    },
  }
}

/** @internal */
export type UpsertParameters = {
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

/** @internal */
export function upsertPositionStatement(db: Database.Database): Database.Statement<[UpsertParameters]> {
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

/** @internal */
export function positionParameters(state: PositionState, at: number): UpsertParameters {
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
