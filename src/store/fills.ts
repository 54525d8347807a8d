import { StockrouteError } from '@stockroute/client/domain/errors.js'
import type { ExchangeCode, TokenKind } from '@stockroute/client/domain/markets.js'
import {
  type AssetAmount,
  type ShareQuantity,
  type StockQuantity,
  toAssetAmount,
} from '@stockroute/client/domain/units.js'
import type { Address, Hex } from 'viem'
import {
  blockNumberToInteger,
  canonicalAddress,
  canonicalBytes32,
  LedgerInputError,
  safeInteger,
  textToUint,
  uintToText,
} from './codec.js'
import type { RepositoryContext } from './context.js'
import { type ExecutionPricingRow, fillSlippageOf } from './fillSlippageOf.js'
import type { PositionRecord } from './positionAccounting.js'
import { checkTokenInfo, createPositionWriter, fillEntryOfRow, type PositionWriter } from './positionRows.js'

/**
 * One settlement, decoded from the executor's `QuoteExecuted(quoteId, taker, stockToken,
 * assetToken, isBuy, amountIn, amountOut, feeAmount)` log, with where it was mined and what it was.
 * Buy: `amountIn` is the asset paid (fee included), `amountOut` the stock received; sell:
 * `amountIn` the stock delivered, `amountOut` the asset received net of the fee.
 */
export type NewFill = {
  chainId: number
  txHash: Hex
  logIndex: number
  /** The execution it settles; looked up by quote id when omitted. */
  executionId?: number | undefined
  quoteId: Hex
  taker: Address
  stockToken: Address
  assetToken: Address
  isBuy: boolean
  amountIn: bigint
  amountOut: bigint
  feeAmount: AssetAmount
  blockNumber: bigint
  /** The block's hash: a reorg that moves the transaction to another block is seen by it. */
  blockHash?: Hex | undefined
  /** The block's timestamp, Unix seconds (viem's `block.timestamp`). */
  blockTime: bigint
  ticker: string
  exchange: ExchangeCode
  /** The stock token's kind: the unit of the stock amount. */
  tokenKind: TokenKind
  /** Decimals of `assetToken` on this chain. */
  assetDecimals: number
}

/** A stored fill, with its amounts also by unit. */
export type FillRecord = Omit<NewFill, 'executionId' | 'blockHash'> & {
  id: number
  blockHash: Hex | null
  /** When a reorg took its block away (it no longer counts in positions), else null. */
  reversedAtMs: number | null
  reversalReason: string | null
  /** Ledger order, shared with position adjustments. */
  seq: number
  executionId: number | null
  /** The stock side (whole shares for a StockToken, 1e18 units for a ShareToken). */
  stockAmount: StockQuantity | ShareQuantity
  /** The asset side: paid (buy, fee included) or received (sell, net of fee). */
  assetAmount: AssetAmount
  recordedAtMs: number
}

/** What {@link FillsRepository.recordFill} did. */
export type RecordFillResult =
  | {
      status: 'recorded'
      fill: FillRecord
      position: PositionRecord
      /** The fill of the same log in another block, reversed by this one (a reorg moved it). */
      moved?: FillRecord | undefined
    }
  /** This (chain, tx hash, log index) was recorded before; nothing changed. */
  | { status: 'duplicate'; fill: FillRecord }

/** Stable codes of {@link FillRecordError}. */
export type FillRecordErrorCode = 'FILL_CONFLICT'

/**
 * A fill with the same (chain, tx hash, log index) is stored with different contents: one of the
 * two decodings is wrong. Nothing was changed.
 *
 * @example
 * try {
 *   ledger.fills.recordFill(fill)
 * } catch (error) {
 *   if (error instanceof FillRecordError) alert(error.details)
 * }
 */
export class FillRecordError extends StockrouteError {
  override name = 'FillRecordError'
  override readonly code: FillRecordErrorCode = 'FILL_CONFLICT'
}

type FillRow = {
  id: number
  seq: number
  chain_id: number
  tx_hash: string
  log_index: number
  execution_id: number | null
  quote_id: string
  taker: string
  stock_token: string
  asset_token: string
  token_kind: TokenKind
  asset_decimals: number
  ticker: string
  exchange: number
  is_buy: number
  amount_in: string
  amount_out: string
  fee_amount: string
  block_number: number
  block_hash: string | null
  block_time: number
  recorded_at_ms: number
  reversed_at_ms: number | null
  reversal_reason: string | null
  /** Asset base units this fill realized in the average-cost fold (migration 7). */
  realized_pnl: string
  slippage_vs_quote_cbps: number | null
  slippage_vs_market_cbps: number | null
}

function toRecord(row: FillRow): FillRecord {
  const entry = fillEntryOfRow(row)
  if (entry.kind !== 'fill') throw new Error('unreachable')
  return {
    id: row.id,
    seq: row.seq,
    chainId: row.chain_id,
    txHash: row.tx_hash as Hex,
    logIndex: row.log_index,
    executionId: row.execution_id,
    quoteId: row.quote_id as Hex,
    taker: row.taker as Address,
    stockToken: row.stock_token as Address,
    assetToken: row.asset_token as Address,
    isBuy: row.is_buy === 1,
    amountIn: textToUint(row.amount_in, 'fills.amount_in'),
    amountOut: textToUint(row.amount_out, 'fills.amount_out'),
    feeAmount: toAssetAmount(textToUint(row.fee_amount, 'fills.fee_amount')),
    blockNumber: BigInt(row.block_number),
    blockHash: row.block_hash as Hex | null,
    blockTime: BigInt(row.block_time),
    ticker: row.ticker,
    exchange: row.exchange as ExchangeCode,
    tokenKind: row.token_kind,
    assetDecimals: row.asset_decimals,
    stockAmount: entry.stockAmount as StockQuantity | ShareQuantity,
    assetAmount: toAssetAmount(entry.assetAmount),
    recordedAtMs: row.recorded_at_ms,
    reversedAtMs: row.reversed_at_ms,
    reversalReason: row.reversal_reason,
  }
}

/** The fills repository: settlements decoded from the chain, each counted once, with their positions. */
export type FillsRepository = {
  /**
   * Stores a fill and updates its position in the same transaction. Idempotent: the same
   * (chain id, tx hash, log index) again changes nothing and returns `duplicate` (throws
   * {@link FillRecordError} if its contents differ). The same log in another block (a reorg moved
   * its transaction) reverses the stored fill and records this one: `moved` names the reversed one.
   *
   * @example
   * const result = ledger.fills.recordFill({ chainId, txHash, logIndex, ...decodedQuoteExecuted, blockNumber,
   *   blockTime: block.timestamp, ticker: 'AAPL', exchange: 0, tokenKind: 'stock', assetDecimals: 6 })
   * if (result.status === 'recorded') result.position.balance
   */
  recordFill(fill: NewFill): RecordFillResult
  /**
   * @example
   * ledger.fills.getFill(31337, txHash, 3)
   */
  getFill(chainId: number, txHash: Hex, logIndex: number): FillRecord | undefined
  /**
   * Fills in ledger order, optionally of one chain, one execution, or recorded since a time.
   *
   * @example
   * ledger.fills.listFills({ executionId: 12 })
   */
  listFills(filter?: {
    chainId?: number | undefined
    executionId?: number | undefined
    sinceMs?: number | undefined
    /** Also the fills a reorg reversed (default: live fills only). */
    includeReversed?: boolean | undefined
  }): FillRecord[]
  /**
   * The live fills of several executions at once, in ledger order (one indexed query for a page of
   * executions, where {@link listFills} per execution would be one query each).
   *
   * @example
   * ledger.fills.listFillsOfExecutions([12, 13]).map((fill) => fill.executionId) // [12, 13, 13]
   */
  listFillsOfExecutions(executionIds: readonly number[]): FillRecord[]
  /**
   * A reorg removed the block of `txHash`: its live fills stop counting (reversed once: a second
   * call finds none) and positions are rebuilt without them. Returns the fills reversed.
   *
   * @example
   * ledger.fills.reverseFillsOfTransaction(31337, txHash, 'a reorg removed block 41')
   */
  reverseFillsOfTransaction(chainId: number, txHash: Hex, reason: string): FillRecord[]
}

/** Where a log was mined: the same log in another block is a reorg, not a conflict. */
const blockFields: ReadonlySet<string> = new Set(['block_number', 'block_time'])

/** Builds the fills repository over an open database (see `openLedger`); reversals rebuild `positions`. */
export function createFillsRepository(
  context: RepositoryContext,
  positions: { recomputePositions(): unknown },
): FillsRepository {
  const { db, now } = context
  const writer = createPositionWriter(context)
  const statements = prepareFillStatements(db)
  const { selectOne, selectMany, selectOfExecution, selectOfExecutions } = statements
  const writing: FillWriting = { statements, writer, positions, now }
  const reverse = db.transaction((chainId: number, txHash: Hex, reason: string): FillRecord[] =>
    reverseLiveFills(writing, chainId, txHash, reason),
  )
  const record = db.transaction((fill: NewFill): RecordFillResult => recordNewFill(writing, fill))

  return {
    recordFill: (fill) => record.immediate(fill),
    getFill(chainId, txHash, logIndex) {
      const row = selectOne.get(chainId, canonicalBytes32(txHash, 'txHash'), logIndex)
      return row ? toRecord(row) : undefined
    },
    listFills(filter = {}) {
      const chainId = filter.chainId ?? null
      const executionId = filter.executionId ?? null
      const withReversed = filter.includeReversed ? 1 : 0
      // One execution's fills by its index (the general statement scans every fill).
      if (executionId !== null)
        return selectOfExecution
          .all(executionId, chainId, chainId, filter.sinceMs ?? null, withReversed)
          .map(toRecord)
      return selectMany
        .all(chainId, chainId, executionId, executionId, filter.sinceMs ?? null, withReversed)
        .map(toRecord)
    },
    listFillsOfExecutions: (executionIds) =>
      executionIds.length === 0
        ? []
        : selectOfExecutions.all(JSON.stringify(executionIds.filter(Number.isSafeInteger))).map(toRecord),
    reverseFillsOfTransaction: (chainId, txHash, reason) =>
      reverse.immediate(
        safeInteger(chainId, 'chainId', 1),
        canonicalBytes32(txHash, 'txHash'),
        String(reason),
      ),
  }
}

/** The statements of the fills repository, prepared once per connection. */
function prepareFillStatements(db: RepositoryContext['db']) {
  return {
    selectOne: db.prepare<[number, string, number], FillRow>(
      'SELECT * FROM fills WHERE chain_id = ? AND tx_hash = ? AND log_index = ? AND reversed_at_ms IS NULL',
    ),
    selectById: db.prepare<[number], FillRow>('SELECT * FROM fills WHERE id = ?'),
    selectLiveOfTx: db.prepare<[number, string], FillRow>(
      'SELECT * FROM fills WHERE chain_id = ? AND tx_hash = ? AND reversed_at_ms IS NULL ORDER BY seq',
    ),
    setReversed: db.prepare<[number, string, number]>(
      'UPDATE fills SET reversed_at_ms = ?, reversal_reason = ? WHERE id = ? AND reversed_at_ms IS NULL',
    ),
    selectQuoteOwner: db.prepare<[string], { execution_id: number }>(
      'SELECT execution_id FROM execution_quotes WHERE quote_id = ?',
    ),
    insert: db.prepare<[Omit<FillRow, 'id' | 'reversed_at_ms' | 'reversal_reason'>]>(
      `INSERT INTO fills (seq, chain_id, tx_hash, log_index, execution_id, quote_id, taker, stock_token, asset_token,
       token_kind, asset_decimals, ticker, exchange, is_buy, amount_in, amount_out, fee_amount, block_number,
       block_hash, block_time, recorded_at_ms, realized_pnl, slippage_vs_quote_cbps, slippage_vs_market_cbps)
     VALUES (@seq, @chain_id, @tx_hash, @log_index, @execution_id, @quote_id, @taker, @stock_token, @asset_token,
       @token_kind, @asset_decimals, @ticker, @exchange, @is_buy, @amount_in, @amount_out, @fee_amount,
       @block_number, @block_hash, @block_time, @recorded_at_ms, @realized_pnl, @slippage_vs_quote_cbps,
       @slippage_vs_market_cbps)`,
    ),
    selectExecutionPricing: db.prepare<[number], ExecutionPricingRow & { strategy: string | null }>(
      'SELECT strategy, quote_json, market_price, market_fx_rate FROM executions WHERE id = ?',
    ),
    setBlockHash: db.prepare<[string | null, number]>('UPDATE fills SET block_hash = ? WHERE id = ?'),
    selectMany: db.prepare<
      [number | null, number | null, number | null, number | null, number | null, number],
      FillRow
    >(
      `SELECT * FROM fills WHERE (? IS NULL OR chain_id = ?) AND (? IS NULL OR execution_id = ?)
       AND recorded_at_ms >= coalesce(?, 0) AND (? OR reversed_at_ms IS NULL) ORDER BY seq`,
    ),
    selectOfExecution: db.prepare<[number, number | null, number | null, number | null, number], FillRow>(
      `SELECT * FROM fills WHERE execution_id = ? AND (? IS NULL OR chain_id = ?)
       AND recorded_at_ms >= coalesce(?, 0) AND (? OR reversed_at_ms IS NULL) ORDER BY seq`,
    ),
    selectOfExecutions: db.prepare<[string], FillRow>(
      `SELECT * FROM fills WHERE execution_id IN (SELECT value FROM json_each(?))
       AND reversed_at_ms IS NULL ORDER BY seq`,
    ),
  }
}

/** What writing fills works with: the statements, the position writer, the positions to rebuild, the clock. */
type FillWriting = {
  statements: ReturnType<typeof prepareFillStatements>
  writer: PositionWriter
  positions: { recomputePositions(): unknown }
  now: () => number
}

/** A fill's row as its log gives it, before the ledger adds its order, execution and figures. */
type LoggedFillRow = Omit<
  FillRow,
  | 'id'
  | 'seq'
  | 'execution_id'
  | 'recorded_at_ms'
  | 'block_hash'
  | 'reversed_at_ms'
  | 'reversal_reason'
  | 'realized_pnl'
  | 'slippage_vs_quote_cbps'
  | 'slippage_vs_market_cbps'
>

/** `reverseFillsOfTransaction`, inside its write transaction. */
function reverseLiveFills(
  { statements, positions, now }: FillWriting,
  chainId: number,
  txHash: Hex,
  reason: string,
): FillRecord[] {
  const live = statements.selectLiveOfTx.all(chainId, txHash)
  for (const row of live) statements.setReversed.run(now(), reason, row.id)
  if (live.length > 0) positions.recomputePositions()
  return live.map((row) => toRecord(statements.selectById.get(row.id) as FillRow))
}

/** `recordFill`, inside its write transaction: once per log, the same log in another block a reorg. */
function recordNewFill(writing: FillWriting, fill: NewFill): RecordFillResult {
  const row = loggedFillRow(fill)
  const blockHash = fill.blockHash === undefined ? null : canonicalBytes32(fill.blockHash, 'blockHash')
  const existing = writing.statements.selectOne.get(row.chain_id, row.tx_hash, row.log_index)
  let moved: FillRecord | undefined
  if (existing) {
    const seen = sameLogAgain(writing, existing, row, blockHash)
    if (seen.status === 'duplicate') return seen
    moved = seen.moved
  }
  return insertFill(writing, fill, row, blockHash, moved)
}

/** The fill's row from its log, each field checked (in this order: the first bad one is reported). */
function loggedFillRow(fill: NewFill): LoggedFillRow {
  const token = checkTokenInfo(fill, 'fill')
  if (typeof fill.isBuy !== 'boolean') throw new LedgerInputError('isBuy', fill.isBuy, 'must be a boolean.')
  const blockTime = fill.blockTime
  if (typeof blockTime !== 'bigint' || blockTime < 0n)
    throw new LedgerInputError('blockTime', blockTime, 'must be a non-negative bigint of Unix seconds.')
  return {
    chain_id: safeInteger(fill.chainId, 'chainId', 1),
    tx_hash: canonicalBytes32(fill.txHash, 'txHash'),
    log_index: safeInteger(fill.logIndex, 'logIndex'),
    quote_id: canonicalBytes32(fill.quoteId, 'quoteId'),
    taker: canonicalAddress(fill.taker, 'taker'),
    stock_token: canonicalAddress(fill.stockToken, 'stockToken'),
    asset_token: token.assetToken,
    token_kind: token.tokenKind,
    asset_decimals: token.assetDecimals,
    ticker: token.ticker,
    exchange: token.exchange,
    is_buy: fill.isBuy ? 1 : 0,
    amount_in: uintToText(fill.amountIn, 'amountIn'),
    amount_out: uintToText(fill.amountOut, 'amountOut'),
    fee_amount: uintToText(fill.feeAmount, 'feeAmount'),
    block_number: blockNumberToInteger(fill.blockNumber, 'blockNumber'),
    block_time: blockNumberToInteger(blockTime, 'blockTime'),
  }
}

/**
 * A log already recorded: the same fill in the same block is a duplicate (its block hash filled in
 * when it had none); in another block, a reorg moved it, so the stored one is reversed.
 */
function sameLogAgain(
  { statements, positions, now }: FillWriting,
  existing: FillRow,
  row: LoggedFillRow,
  blockHash: string | null,
): { status: 'duplicate'; fill: FillRecord } | { status: 'moved'; moved: FillRecord } {
  assertSameFill(existing, row)
  const sameBlock =
    existing.block_number === row.block_number &&
    (blockHash === null || existing.block_hash === null || existing.block_hash === blockHash)
  if (sameBlock) {
    if (existing.block_hash === null && blockHash !== null)
      statements.setBlockHash.run(blockHash, existing.id)
    return { status: 'duplicate', fill: toRecord(statements.selectById.get(existing.id) as FillRow) }
  }
  // The same log in another block: a reorg moved the transaction while nobody watched.
  statements.setReversed.run(now(), `moved by a reorg to block ${row.block_number}`, existing.id)
  positions.recomputePositions()
  return { status: 'moved', moved: toRecord(statements.selectById.get(existing.id) as FillRow) }
}

/** One decoding of a log: the same log stored with other fields (but where it was mined) is a conflict. */
function assertSameFill(existing: FillRow, row: LoggedFillRow): void {
  const differing = (Object.keys(row) as (keyof typeof row)[]).filter(
    (key) => !blockFields.has(key) && existing[key] !== row[key],
  )
  if (differing.length > 0)
    throw new FillRecordError({
      code: 'FILL_CONFLICT',
      shortMessage: `Fill ${row.tx_hash}#${row.log_index} on chain ${row.chain_id} is already stored with different ${differing.join(', ')}: one decoding of that log is wrong. Nothing was changed.`,
      remedy:
        "compare both with the chain's QuoteExecuted log of that transaction and report which decoding differs (the ledger keeps the first)",
      details: { chainId: row.chain_id, txHash: row.tx_hash, logIndex: row.log_index, differing },
    })
}

/** The new fill: its execution, its place in the ledger order, its position and figures, stored. */
function insertFill(
  { statements, writer, now }: FillWriting,
  fill: NewFill,
  row: LoggedFillRow,
  blockHash: string | null,
  moved: FillRecord | undefined,
): RecordFillResult {
  const executionId =
    fill.executionId === undefined
      ? (statements.selectQuoteOwner.get(row.quote_id)?.execution_id ?? null)
      : safeInteger(fill.executionId, 'executionId', 1)
  const seq = writer.nextSeq()
  const execution = executionId === null ? undefined : statements.selectExecutionPricing.get(executionId)
  const slippage = fillSlippageOf(row, execution)
  const entry = fillEntryOfRow({ ...row, seq })
  const { record: position, realized } = writer.apply(entry, {
    atMs: row.block_time * 1000,
    strategy: execution?.strategy ?? null,
    fee: BigInt(row.fee_amount),
    quoteSlippageCbps: slippage.quote,
    marketSlippageCbps: slippage.market,
  })
  const result = statements.insert.run({
    ...row,
    seq,
    execution_id: executionId,
    block_hash: blockHash,
    recorded_at_ms: now(),
    realized_pnl: realized.toString(),
    slippage_vs_quote_cbps: slippage.quote,
    slippage_vs_market_cbps: slippage.market,
  })
  const stored = statements.selectById.get(Number(result.lastInsertRowid)) as FillRow
  return { status: 'recorded', fill: toRecord(stored), position, ...(moved ? { moved } : {}) }
}
