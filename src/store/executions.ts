import { isExchangeCode } from '@stockroute/client/domain/markets.js'
import type { Hex } from 'viem'
import { canonicalBytes32, jsonWithBigints, LedgerInputError, safeInteger, uintToText } from './codec.js'
import type { RepositoryContext } from './context.js'
import { reasonClassOf } from './executionReasonClass.js'
import {
  type EventRow,
  type ExecutionEvent,
  type ExecutionPatch,
  type ExecutionRecord,
  type ExecutionRow,
  type NewExecution,
  toEvent,
  toRecord,
} from './executionRecord.js'
import {
  type ExecutionState,
  ExecutionStateError,
  executionTransitions,
  isAllowedTransition,
} from './executionStates.js'
import { type ExecutionFilter, listExecutions } from './listExecutions.js'
import { listStrategyActivity, type StrategyActivity } from './strategyActivity.js'

export type {
  ExecutionEvent,
  ExecutionNotional,
  ExecutionPatch,
  ExecutionRecord,
  NewExecution,
} from './executionRecord.js'
export * from './executionStates.js'
export type { StrategyActivity } from './strategyActivity.js'

// ---------------------------------------------------------------------------------------------
// Repository

/** The executions repository: the durable state machine of each intent, and its event log. */
export type ExecutionsRepository = {
  /**
   * Creates the execution of an intent, in state `intent`, with its first event. Throws
   * `DUPLICATE_INTENT` when the intent already has one (`details.existingExecutionId`).
   *
   * @example
   * const execution = ledger.executions.createExecution({
   *   intentId: 'dca-aapl-2025-06-01', chainId: 31337, ticker: 'AAPL', exchange: 0,
   *   side: 'buy', amountIn: '1000', amountType: 'stablecoin',
   * })
   * execution.state // 'intent'
   */
  createExecution(execution: NewExecution): ExecutionRecord
  /**
   * Moves an execution from `from` to `to` if the move is allowed and the execution is still in
   * `from` (compare-and-set), applies `patch`, and appends the event, all in one transaction. Given
   * the record last read (`from` as an {@link ExecutionRecord}), the compare-and-set is on its state
   * AND version, so a move decided on a stale read fails even when the state came back.
   * Throws {@link ExecutionStateError}: `ILLEGAL_TRANSITION`, `EXECUTION_STATE_CONFLICT`,
   * `EXECUTION_NOT_FOUND`, or `DUPLICATE_QUOTE` when the quote id belongs to another execution.
   *
   * @example
   * ledger.executions.transition(id, 'quoting', 'quoted', 'quote received', {
   *   quoteId: quote.quoteId, quote, notional: { amount: quote.amountInUsed, decimals: 6 },
   * })
   */
  transition(
    executionId: number,
    from: ExecutionState | Pick<ExecutionRecord, 'state' | 'version'>,
    to: ExecutionState,
    reason: string,
    patch?: ExecutionPatch,
  ): ExecutionRecord
  /**
   * @example
   * ledger.executions.getExecution(1)?.state // 'submitted'
   */
  getExecution(executionId: number): ExecutionRecord | undefined
  /**
   * @example
   * ledger.executions.getExecutionByIntent('dca-aapl-2025-06-01')
   */
  getExecutionByIntent(intentId: string): ExecutionRecord | undefined
  /**
   * The execution a quote id was ever attached to (also a quote later dropped for a new one).
   *
   * @example
   * ledger.executions.getExecutionByQuoteId(fill.quoteId)?.id
   */
  getExecutionByQuoteId(quoteId: Hex): ExecutionRecord | undefined
  /**
   * Executions not yet terminal, oldest first: what crash recovery reconciles at start.
   *
   * @example
   * for (const execution of ledger.executions.listUnfinishedExecutions()) reconcile(execution)
   */
  listUnfinishedExecutions(filter?: { chainId?: number | undefined }): ExecutionRecord[]
  /**
   * The event log of one execution, oldest first.
   *
   * @example
   * ledger.executions.listExecutionEvents(1).map((event) => event.to)
   * // ['intent', 'quoting', 'quoted', 'submitted', 'confirmed']
   */
  listExecutionEvents(executionId: number): ExecutionEvent[]
  /** Executions by state, chain, ticker, strategy and creation time, newest first, a page at a time. */
  listExecutions(filter?: ExecutionFilter): ExecutionRecord[]
  /**
   * Per strategy that ever submitted an intent: how many executions, how many confirmed, and when
   * it last traded (its last confirmation).
   *
   * @example
   * ledger.executions.listStrategyActivity()
   * // [{ strategy: 'dca-aapl', submitted: 3, confirmed: 2, lastTradeAtMs: 1748874718000 }]
   */
  listStrategyActivity(): StrategyActivity[]
}

/** Builds the executions repository over an open database (see `openLedger`). */
export function createExecutionsRepository({ db, now }: RepositoryContext): ExecutionsRepository {
  const statements = prepareExecutionStatements(db)
  const { selectById, selectByIntent, selectQuoteOwner, selectUnfinished, selectEvents } = statements
  const create = db.transaction(
    (execution: NewExecution): ExecutionRecord => insertNewExecution(statements, now, execution),
  )
  const move = db.transaction(
    (move: ExecutionMove): ExecutionRecord => compareAndMoveExecution(statements, now, move),
  )

  return {
    createExecution: (execution) => create.immediate(execution),
    transition(executionId, expected, to, reason, patch = {}) {
      safeInteger(executionId, 'executionId', 1)
      const from = typeof expected === 'string' ? expected : expected.state
      const version = typeof expected === 'string' ? null : safeInteger(expected.version, 'version')
      if (!isAllowedTransition(from, to)) {
        const allowed: readonly string[] = executionTransitions[from] ?? []
        throw new ExecutionStateError({
          code: 'ILLEGAL_TRANSITION',
          shortMessage: `Execution ${executionId} cannot move from ${from} to ${to}: from ${from} the allowed moves are ${allowed.length > 0 ? allowed.join(', ') : 'none (it is terminal)'}.`,
          remedy:
            'move it only along the allowed moves (executionTransitions in src/store/executionStates.ts)',
          details: { executionId, from, to, allowed },
        })
      }
      if (typeof reason !== 'string' || reason === '')
        throw new LedgerInputError('reason', reason, 'is empty: say why the execution moves.')
      return move.immediate({ executionId, from, version, to, reason, patch })
    },
    getExecution(executionId) {
      const row = selectById.get(executionId)
      return row ? toRecord(row) : undefined
    },
    getExecutionByIntent(intentId) {
      const row = selectByIntent.get(intentId)
      return row ? toRecord(row) : undefined
    },
    getExecutionByQuoteId(quoteId) {
      const owner = selectQuoteOwner.get(canonicalBytes32(quoteId, 'quoteId'))
      if (!owner) return undefined
      const row = selectById.get(owner.execution_id)
      return row ? toRecord(row) : undefined
    },
    listUnfinishedExecutions(filter = {}) {
      const chainId = filter.chainId ?? null
      return selectUnfinished.all(chainId, chainId).map(toRecord)
    },
    listExecutionEvents(executionId) {
      return selectEvents.all(executionId).map(toEvent)
    },
    listExecutions: listExecutions({ db, now }),
    listStrategyActivity: listStrategyActivity({ db, now }),
  }
}

/** The statements of the executions repository, prepared once per connection. */
function prepareExecutionStatements(db: RepositoryContext['db']) {
  return {
    insertExecution: db.prepare<[NewExecutionRow]>(
      `INSERT INTO executions (intent_id, chain_id, ticker, exchange, side, amount_in, amount_type, limit_price,
       strategy, state, reason, reason_class, created_at_ms, updated_at_ms)
     VALUES (@intent_id, @chain_id, @ticker, @exchange, @side, @amount_in, @amount_type, @limit_price,
       @strategy, @state, @reason, @reason_class, @now, @now)
     ON CONFLICT (intent_id) DO NOTHING`,
    ),
    insertEvent: db.prepare<[number, string | null, string, string, string | null, number]>(
      `INSERT INTO execution_events (execution_id, from_state, to_state, reason, quote_id, at_ms)
     VALUES (?, ?, ?, ?, ?, ?)`,
    ),
    selectById: db.prepare<[number], ExecutionRow>('SELECT * FROM executions WHERE id = ?'),
    selectByIntent: db.prepare<[string], ExecutionRow>('SELECT * FROM executions WHERE intent_id = ?'),
    selectQuoteOwner: db.prepare<[string], { execution_id: number }>(
      'SELECT execution_id FROM execution_quotes WHERE quote_id = ?',
    ),
    insertQuoteOwner: db.prepare<[string, number, number]>(
      'INSERT INTO execution_quotes (quote_id, execution_id, attached_at_ms) VALUES (?, ?, ?) ON CONFLICT DO NOTHING',
    ),
    compareAndSet: db.prepare<[CompareAndSetParameters]>(
      `UPDATE executions SET
       state = @to, reason = @reason, updated_at_ms = @now, version = version + 1,
       quote_id = CASE WHEN @set_quote_id THEN @quote_id ELSE quote_id END,
       quote_json = CASE WHEN @set_quote THEN @quote_json ELSE quote_json END,
       notional = CASE WHEN @set_notional THEN @notional ELSE notional END,
       asset_decimals = CASE WHEN @set_notional THEN @asset_decimals ELSE asset_decimals END,
       market_price = CASE WHEN @set_market_price THEN @market_price ELSE market_price END,
       market_price_at_ms = CASE WHEN @set_market_price THEN @market_price_at_ms ELSE market_price_at_ms END,
       market_fx_rate = CASE WHEN @set_market_price THEN @market_fx_rate ELSE market_fx_rate END,
       reason_class = @reason_class
     WHERE id = @id AND state = @from AND (@version IS NULL OR version = @version)`,
    ),
    selectUnfinished: db.prepare<[number | null, number | null], ExecutionRow>(
      `SELECT * FROM executions
     WHERE state NOT IN ('confirmed', 'failed', 'expired', 'rejected') AND (? IS NULL OR chain_id = ?)
     ORDER BY id`,
    ),
    selectEvents: db.prepare<[number], EventRow>(
      'SELECT * FROM execution_events WHERE execution_id = ? ORDER BY id',
    ),
  }
}

type ExecutionStatements = ReturnType<typeof prepareExecutionStatements>

type NewExecutionRow = {
  intent_id: string
  chain_id: number
  ticker: string
  exchange: number
  side: string
  amount_in: string
  amount_type: string
  limit_price: string | null
  strategy: string | null
  state: string
  reason: string
  reason_class: string
  now: number
}

type CompareAndSetParameters = {
  id: number
  from: string
  to: string
  reason: string
  now: number
  set_quote_id: number
  quote_id: string | null
  set_quote: number
  quote_json: string | null
  set_notional: number
  notional: string | null
  asset_decimals: number | null
  set_market_price: number
  market_price: string | null
  market_price_at_ms: number | null
  market_fx_rate: string | null
  reason_class: string
  version: number | null
}

/** One move of `transition`, its arguments checked. */
type ExecutionMove = {
  executionId: number
  from: ExecutionState
  version: number | null
  to: ExecutionState
  reason: string
  patch: ExecutionPatch
}

function mustGetExecution(statements: ExecutionStatements, executionId: number): ExecutionRecord {
  const row = statements.selectById.get(executionId)
  if (!row)
    throw new ExecutionStateError({
      code: 'EXECUTION_NOT_FOUND',
      shortMessage: `Execution ${executionId} does not exist in this ledger: check the id (and that the daemon and CLI use the same ledger file).`,
      details: { executionId },
    })
  return toRecord(row)
}

/** `createExecution`, inside its write transaction: the row and its first event, once per intent. */
function insertNewExecution(
  statements: ExecutionStatements,
  now: () => number,
  execution: NewExecution,
): ExecutionRecord {
  const intentId = nonEmpty(execution.intentId, 'intentId')
  checkAmount(execution)
  const at = now()
  const result = statements.insertExecution.run(newExecutionRow(execution, intentId, at))
  if (result.changes === 0) {
    const existing = statements.selectByIntent.get(intentId)
    throw new ExecutionStateError({
      code: 'DUPLICATE_INTENT',
      shortMessage: `Intent ${JSON.stringify(intentId)} already has execution ${existing?.id}: an intent is executed at most once. Follow that execution instead of creating another.`,
      details: { intentId, existingExecutionId: existing?.id },
    })
  }
  const id = Number(result.lastInsertRowid)
  statements.insertEvent.run(id, null, 'intent', execution.reason ?? 'intent recorded', null, at)
  return mustGetExecution(statements, id)
}

function checkAmount(execution: NewExecution): void {
  if (typeof execution.amountIn !== 'string' || !/^\d+(\.\d+)?$/.test(execution.amountIn))
    throw new LedgerInputError(
      'amountIn',
      execution.amountIn,
      'is not a plain decimal in natural units, such as "1000" or "0.5".',
    )
  if (execution.side === 'sell' && execution.amountType === 'stablecoin')
    throw new LedgerInputError(
      'amountType',
      execution.amountType,
      "applies to buys only: a sell's amountIn is a share quantity (use 'stocktoken').",
    )
}

/** The row of a new execution, each field checked (in this order: the first bad one is reported). */
function newExecutionRow(execution: NewExecution, intentId: string, at: number): NewExecutionRow {
  return {
    intent_id: intentId,
    chain_id: safeInteger(execution.chainId, 'chainId', 1),
    ticker: nonEmpty(execution.ticker, 'ticker'),
    exchange: checkExchange(execution.exchange),
    side: checkOneOf(execution.side, ['buy', 'sell'], 'side'),
    amount_in: execution.amountIn,
    amount_type: checkOneOf(execution.amountType, ['stablecoin', 'stocktoken'], 'amountType'),
    limit_price: execution.limitPrice === undefined ? null : uintToText(execution.limitPrice, 'limitPrice'),
    strategy: execution.strategy ?? null,
    state: 'intent',
    reason: execution.reason ?? 'intent recorded',
    reason_class: reasonClassOf('intent', execution.reason ?? 'intent recorded'),
    now: at,
  }
}

/**
 * `transition`, inside its write transaction: the compare-and-set of the state (and version), the
 * quote claimed for this execution, and the event logged.
 */
function compareAndMoveExecution(
  statements: ExecutionStatements,
  now: () => number,
  move: ExecutionMove,
): ExecutionRecord {
  const { executionId, from, to, reason, patch } = move
  const at = patch.atMs === undefined ? now() : safeInteger(patch.atMs, 'atMs')
  const quoteId =
    patch.quoteId === undefined || patch.quoteId === null
      ? patch.quoteId
      : canonicalBytes32(patch.quoteId, 'quoteId')
  if (quoteId) assertQuoteFree(statements, quoteId, executionId)
  const result = statements.compareAndSet.run(compareAndSetParameters(move, quoteId, at))
  if (result.changes === 0) throw stateConflict(mustGetExecution(statements, executionId), move)
  if (quoteId) statements.insertQuoteOwner.run(quoteId, executionId, at)
  const record = mustGetExecution(statements, executionId)
  statements.insertEvent.run(executionId, from, to, reason, record.quoteId, at)
  return record
}

/** A quote is executed at most once: it may belong to this execution only. */
function assertQuoteFree(statements: ExecutionStatements, quoteId: Hex, executionId: number): void {
  const owner = statements.selectQuoteOwner.get(quoteId)
  if (owner && owner.execution_id !== executionId)
    throw new ExecutionStateError({
      code: 'DUPLICATE_QUOTE',
      shortMessage: `Quote ${quoteId} already belongs to execution ${owner.execution_id}: a quote is executed at most once. Request a new quote for execution ${executionId}.`,
      details: { quoteId, executionId, existingExecutionId: owner.execution_id },
    })
}

/** The compare-and-set's parameters: the move, and which of the patch's fields it sets. */
function compareAndSetParameters(
  { executionId, from, to, reason, version, patch }: ExecutionMove,
  quoteId: Hex | null | undefined,
  at: number,
): CompareAndSetParameters {
  const setNotional = patch.notional !== undefined
  return {
    id: executionId,
    from,
    to,
    reason,
    now: at,
    set_quote_id: quoteId === undefined ? 0 : 1,
    quote_id: quoteId ?? null,
    set_quote: patch.quote === undefined ? 0 : 1,
    quote_json: patch.quote === undefined || patch.quote === null ? null : jsonWithBigints(patch.quote),
    set_notional: setNotional ? 1 : 0,
    notional: patch.notional ? uintToText(patch.notional.amount, 'notional.amount') : null,
    asset_decimals: patch.notional ? safeInteger(patch.notional.decimals, 'notional.decimals') : null,
    set_market_price: patch.marketPrice === undefined ? 0 : 1,
    market_price: patch.marketPrice ? uintToText(patch.marketPrice.price, 'marketPrice.price') : null,
    market_price_at_ms: patch.marketPrice ? safeInteger(patch.marketPrice.atMs, 'marketPrice.atMs') : null,
    market_fx_rate:
      patch.marketPrice?.fxRate === undefined
        ? null
        : uintToText(patch.marketPrice.fxRate, 'marketPrice.fxRate'),
    reason_class: reasonClassOf(to, reason),
    version,
  }
}

/** The compare-and-set found another state or version: another worker moved the execution first. */
function stateConflict(actual: ExecutionRecord, { executionId, from, version, to }: ExecutionMove) {
  return new ExecutionStateError({
    code: 'EXECUTION_STATE_CONFLICT',
    shortMessage:
      actual.state === from
        ? `Execution ${executionId} is ${from} at version ${actual.version}, not ${version}: another worker moved it since it was read. Reload it and decide again; do not retry the move blindly.`
        : `Execution ${executionId} is ${actual.state}, not ${from}: another worker moved it first. Reload it and decide again; do not retry the move blindly.`,
    details: {
      executionId,
      expected: from,
      actual: actual.state,
      expectedVersion: version,
      version: actual.version,
      to,
    },
  })
}

function nonEmpty(value: string, field: string): string {
  if (typeof value !== 'string' || value === '')
    throw new LedgerInputError(field, value, 'must be a non-empty string.')
  return value
}

function checkExchange(exchange: number): number {
  if (typeof exchange !== 'number' || !isExchangeCode(exchange))
    throw new LedgerInputError('exchange', exchange, 'is not an exchange code: use 0 (US), 1 (HK) or 3 (KR).')
  return exchange
}

function checkOneOf<T extends string>(value: T, allowed: readonly T[], field: string): T {
  if (!allowed.includes(value))
    throw new LedgerInputError(field, value, `must be one of ${allowed.join(', ')}.`)
  return value
}
