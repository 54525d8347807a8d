import { z } from 'zod'
import {
  balancesSchema,
  cancelBodySchema,
  cancelReplySchema,
  discrepancyListSchema,
  eventsQuerySchema,
  executionDetailSchema,
  executionIdParamSchema,
  executionIdSchema,
  executionPageSchema,
  executionsQuerySchema,
  haltBodySchema,
  idempotencyKeySchema,
  killSwitchViewSchema,
  latencySeriesReplySchema,
  ledgerEventViewSchema,
  noQuerySchema,
  optionalReasonBodySchema,
  pnlSeriesQuerySchema,
  pnlSeriesReplySchema,
  positionListSchema,
  positionsQuerySchema,
  previewViewSchema,
  quoteQuerySchema,
  reportNameSchema,
  reportQuerySchema,
  reportReplySchema,
  seriesQuerySchema,
  strategyIdSchema,
  strategyListSchema,
  strategyViewSchema,
  swapAcceptedSchema,
  swapExecutionSchema,
  swapRequestSchema,
} from '../contract.js'

/** One route of the API as GET /v1/openapi.json describes it, with the schemas its handler uses. */
export type OperationDoc = {
  operationId: string
  tag: 'swaps' | 'executions' | 'kill switch' | 'strategies' | 'portfolio' | 'events' | 'reports' | 'meta'
  summary: string
  description?: string | undefined
  /** The route's `:name` segments. */
  params?: Readonly<Record<string, z.ZodType>> | undefined
  /** A strict object of string fields: each becomes a query parameter. */
  query?: z.ZodType | undefined
  headers?: readonly { name: string; schema: z.ZodType; required: boolean; description: string }[] | undefined
  body?: { schema: z.ZodType; required: boolean } | undefined
  /** Successful replies by status. */
  replies: Readonly<
    Record<number, { description: string; schema?: z.ZodType | undefined; contentType?: string | undefined }>
  >
  /** Error statuses beyond those of every /v1 route (400, 401, 500), each with the error body. */
  errors?: readonly number[] | undefined
}

const executionId = { id: executionIdParamSchema.describe('an execution id') }
const strategyId = { id: strategyIdSchema }

/**
 * Every `/v1` route of the control API, keyed `METHOD /path/:name`. The server refuses to start
 * with a `/v1` route missing here, so the document lists exactly what is served.
 */
export const apiOperations: Readonly<Record<string, OperationDoc>> = {
  'POST /v1/swaps': {
    operationId: 'postSwap',
    tag: 'swaps',
    summary: 'Record a swap; it executes in the background',
    description:
      'Answers 202 as soon as the intent `api:<Idempotency-Key>` is recorded. The same key with the same fields answers 200 with the same execution (`Idempotent-Replay: true`); with other fields 409 `IDEMPOTENCY_KEY_REUSED`.',
    headers: [
      {
        name: 'Idempotency-Key',
        schema: idempotencyKeySchema,
        required: true,
        description: 'one key per swap: a retry with the same key never makes a second swap',
      },
    ],
    body: { schema: swapRequestSchema, required: true },
    replies: {
      200: { description: 'a replay of a key seen before', schema: swapAcceptedSchema },
      202: { description: 'recorded; follow it with GET /v1/swaps/{id}', schema: swapAcceptedSchema },
    },
    errors: [409, 413, 415, 422, 503],
  },
  'GET /v1/swaps/:id': {
    operationId: 'getSwap',
    tag: 'swaps',
    summary: 'One execution with its quote, transactions and fills in full',
    description:
      "Everything a client needs to show the swap's outcome: the quote it holds, each transaction's hash, nonce, status, block and receipt with what it calls (an approve's spender and amount, the gas limit; never the signed bytes), each live fill's amounts in base units, tokens and block.",
    params: { id: executionIdSchema },
    replies: { 200: { description: 'the execution', schema: swapExecutionSchema } },
    errors: [404],
  },
  'GET /v1/quotes': {
    operationId: 'getQuote',
    tag: 'swaps',
    summary: 'What a swap would get now: quote, guard verdict, risk, approvals; nothing is recorded',
    query: quoteQuerySchema,
    replies: { 200: { description: 'the preview', schema: previewViewSchema } },
    errors: [422, 503],
  },
  'GET /v1/executions': {
    operationId: 'listExecutions',
    tag: 'executions',
    summary: 'Executions, newest first, a page at a time',
    description:
      'Every filter narrows. Pass `nextCursor` as `cursor` for the next page, with the same filters. `intentId` finds the execution of one intent (at most one). Heavy reads take turns: beyond `api.maxQueuedReads` waiting, 429 `TOO_MANY_REQUESTS`.',
    query: executionsQuerySchema,
    replies: { 200: { description: 'one page', schema: executionPageSchema } },
    errors: [429],
  },
  'GET /v1/executions/:id': {
    operationId: 'getExecution',
    tag: 'executions',
    summary: 'One execution with its timeline, transactions and fills',
    params: executionId,
    replies: { 200: { description: 'the execution', schema: executionDetailSchema } },
    errors: [404],
  },
  'POST /v1/executions/:id/cancel': {
    operationId: 'cancelExecution',
    tag: 'executions',
    summary: 'Cancel an execution that is not signed yet',
    description:
      'It ends `rejected` and is never signed. 409 `ALREADY_SIGNED` once a transaction of it is signed (only the chain decides then), 409 `ALREADY_FINISHED` once it ended.',
    params: executionId,
    body: { schema: cancelBodySchema, required: false },
    replies: { 200: { description: 'cancelled', schema: cancelReplySchema } },
    errors: [404, 409, 415],
  },
  'GET /v1/kill-switch': {
    operationId: 'getKillSwitch',
    tag: 'kill switch',
    summary: 'Whether trading is halted',
    query: noQuerySchema,
    replies: { 200: { description: 'the kill switch', schema: killSwitchViewSchema } },
  },
  'POST /v1/kill-switch/halt': {
    operationId: 'halt',
    tag: 'kill switch',
    summary: 'Halt trading: the next signature of every execution is refused, across restarts',
    description: 'Halting while halted keeps the first reason.',
    body: { schema: haltBodySchema, required: true },
    replies: { 200: { description: 'the kill switch, halted', schema: killSwitchViewSchema } },
    errors: [415],
  },
  'POST /v1/kill-switch/resume': {
    operationId: 'resume',
    tag: 'kill switch',
    summary: 'Resume trading',
    description:
      'Releases the kill switch and the entry halts the risk limits latched (maxDrawdownPct, maxDailyRealizedLoss); their counts start again.',
    body: { schema: optionalReasonBodySchema, required: false },
    replies: { 200: { description: 'the kill switch, released', schema: killSwitchViewSchema } },
    errors: [415],
  },
  'GET /v1/strategies': {
    operationId: 'listStrategies',
    tag: 'strategies',
    summary: 'The configured strategies, whether they run, and their last evaluation',
    query: noQuerySchema,
    replies: { 200: { description: 'every strategy', schema: strategyListSchema } },
    errors: [429],
  },
  'POST /v1/strategies/:id/enable': {
    operationId: 'enableStrategy',
    tag: 'strategies',
    summary: 'Switch a strategy on (kept across restarts)',
    params: strategyId,
    body: { schema: optionalReasonBodySchema, required: false },
    replies: { 200: { description: 'the strategy', schema: strategyViewSchema } },
    errors: [404, 415],
  },
  'POST /v1/strategies/:id/disable': {
    operationId: 'disableStrategy',
    tag: 'strategies',
    summary: 'Switch a strategy off (kept across restarts)',
    params: strategyId,
    body: { schema: optionalReasonBodySchema, required: false },
    replies: { 200: { description: 'the strategy', schema: strategyViewSchema } },
    errors: [404, 415],
  },
  'GET /v1/positions': {
    operationId: 'listPositions',
    tag: 'portfolio',
    summary: "The ledger's positions, amounts in base units",
    query: positionsQuerySchema,
    replies: { 200: { description: 'every position (flat ones too)', schema: positionListSchema } },
    errors: [429],
  },
  'GET /v1/balances': {
    operationId: 'getBalances',
    tag: 'portfolio',
    summary: "Every wallet's native and asset balances, read from the chains now",
    query: noQuerySchema,
    replies: { 200: { description: 'balances by chain', schema: balancesSchema } },
    errors: [503],
  },
  'GET /v1/events': {
    operationId: 'streamEvents',
    tag: 'events',
    summary: "The ledger's event stream, as Server-Sent Events",
    description:
      'Each message: `id:` the event id, `event:` its kind, `data:` the JSON below. Starts after `Last-Event-ID`, else after `after`, else at the newest event. Every later event comes exactly once, in id order, also across reconnects and daemon restarts. A `: heartbeat` comment every 15 s. At most `api.maxEventStreams` streams are open at once, `api.maxEventStreamsPerToken` per token or session: one more gets 429 `TOO_MANY_REQUESTS`.',
    query: eventsQuerySchema,
    headers: [
      {
        name: 'Last-Event-ID',
        schema: z.string().regex(/^\d{1,15}$/),
        required: false,
        description: 'the id of the last event received: the stream resumes after it',
      },
    ],
    replies: {
      200: {
        description: 'the stream; each `data:` line is one event',
        schema: ledgerEventViewSchema,
        contentType: 'text/event-stream',
      },
    },
    errors: [429],
  },
  'GET /v1/reports/:name': {
    operationId: 'getReport',
    tag: 'reports',
    summary: 'A report of the ledger as JSON, with the filters of `stockroute report`',
    description: 'The same object as `stockroute report <name> --json` (docs/reports.md).',
    params: { name: reportNameSchema },
    query: reportQuerySchema,
    replies: { 200: { description: 'the report', schema: reportReplySchema } },
    errors: [429],
  },
  'GET /v1/series/pnl': {
    operationId: 'getPnlSeries',
    tag: 'reports',
    summary: 'Cumulative PnL, fees and cost of open positions per chain and asset, day by day',
    query: pnlSeriesQuerySchema,
    replies: { 200: { description: 'one series per chain and asset', schema: pnlSeriesReplySchema } },
    errors: [429],
  },
  'GET /v1/series/latency': {
    operationId: 'getLatencySeries',
    tag: 'reports',
    summary: 'Quote → broadcast and broadcast → inclusion of the newest executions, per chain',
    query: seriesQuerySchema('/v1/series/latency'),
    replies: { 200: { description: 'points, oldest first', schema: latencySeriesReplySchema } },
    errors: [429],
  },
  'GET /v1/discrepancies': {
    operationId: 'listDiscrepancies',
    tag: 'reports',
    summary: 'What reconciliation found (ledger, chain and service disagree) and what became of it',
    query: seriesQuerySchema('/v1/discrepancies'),
    replies: { 200: { description: 'newest first', schema: discrepancyListSchema } },
    errors: [429],
  },
  'GET /v1/openapi.json': {
    operationId: 'getOpenApi',
    tag: 'meta',
    summary: 'This document',
    replies: { 200: { description: 'the OpenAPI 3.1 document of the routes this daemon serves' } },
  },
}
