import { DomainRuleError } from '@stockroute/client/domain/domainRuleError.js'
import { type ExchangeCode, exchangeCodes, isExchangeCode } from '@stockroute/client/domain/markets.js'
import { parsePrice } from '@stockroute/client/domain/unitStrings.js'
import type { Price } from '@stockroute/client/domain/units.js'
import { z } from 'zod'
import { reportNames } from '../../report/types.js'
import { type LedgerEventKind, ledgerEventKinds } from '../../store/events.js'
import { type ExecutionState, executionStates } from '../../store/executionStates.js'
import { decodeExecutionCursor } from './executionCursor.js'

// The control API's contract: what its requests and replies hold, as zod schemas with the types
// inferred from them. The routes validate requests and build replies with them, GET
// /v1/openapi.json is generated from them, and the CLI validates the daemon's replies with them, so
// none of the three can drift from the others.
//
// Requests are validated once at the edge. Messages complete a sentence that starts with the
// field's name ("amountIn must be a plain decimal…"), so a 400 can list them as they are. A reply
// schema with a `meta({ id })` becomes a named component of the OpenAPI document.

// ---------------------------------------------------------------------------------------------
// Errors

/** One bad input: the field (body field, query parameter or header) and what is wrong with it. */
export type FieldProblem = { field: string; problem: string }

/** Stable codes of the error bodies: the `code` of every error the control API sends. */
export const controlApiErrorCodes = [
  'BAD_REQUEST',
  'UNAUTHORIZED',
  /** A dashboard session's state-changing request without its X-CSRF-Token (403). */
  'FORBIDDEN',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'IDEMPOTENCY_KEY_REUSED',
  /** The engine refused the intent (a market rule, an inactive token): the message says what to change. */
  'INVALID_INTENT',
  /** The request names a chain the daemon does not trade on. */
  'UNKNOWN_CHAIN',
  /** The service refused the quote request (400/404 from the service): sent as 422. */
  'SERVICE_REFUSED',
  /** The service is unreachable, failing or rate limiting: sent as 503, retry later. */
  'SERVICE_UNAVAILABLE',
  /** A chain's node did not answer a read (balances): sent as 503, retry later. */
  'CHAIN_UNAVAILABLE',
  /** The engine is shutting down and takes no new intents: sent as 503. */
  'ENGINE_CLOSED',
  /** A cancel came too late: a transaction of the execution is signed, only the chain decides now (409). */
  'ALREADY_SIGNED',
  /** A cancel came too late: the execution already ended (409). */
  'ALREADY_FINISHED',
  /**
   * A limit of the daemon (429, with `Retry-After`): too many event streams open (overall, or with
   * this token), or too many heavy reads already waiting their turn. The message names the limit.
   */
  'TOO_MANY_REQUESTS',
  /**
   * Cluster mode: no daemon of the cluster holds a wallet on the swap's chain now, or the daemon that
   * owns the swap's Idempotency-Key is being replaced or did not answer: sent as 503, retry with the same key.
   */
  'OWNER_UNAVAILABLE',
  'INTERNAL',
] as const
export type ControlApiErrorCode = (typeof controlApiErrorCodes)[number]

/** The error body of every control API error. */
export type ControlApiErrorBody = { code: ControlApiErrorCode; message: string; details?: FieldProblem[] }

// ---------------------------------------------------------------------------------------------
// Requests: the swap API

const plainDecimal = /^\d+(\.\d+)?$/

/** Missing → "is required"; present with the wrong type → `expected`. */
export const typeError = (expected: string) => (issue: { input?: unknown }) =>
  issue.input === undefined ? 'is required' : `must be ${expected}`

const ticker = z
  .string({ error: typeError('a string, e.g. "AAPL" or "AAPLs"') })
  .min(1, 'must not be empty: name a StockToken ticker, or a ShareToken ticker with the "s" suffix')
  .max(32, 'is longer than 32 characters')
  .regex(/^\S+$/, 'must not contain whitespace')

const sideField = z.enum(['buy', 'sell'], { error: typeError('"buy" or "sell"') })

const amountIn = z
  .string({ error: typeError('a decimal string in natural units, e.g. "1000" or "0.5"') })
  .max(78, 'is longer than 78 characters')
  .regex(
    plainDecimal,
    'must be a plain decimal string in natural units, e.g. "1000" or "0.5" (no sign, exponent or separators)',
  )

const amountType = z.enum(['stablecoin', 'stocktoken'], { error: typeError('"stablecoin" or "stocktoken"') })

const limitPrice = z
  .string({ error: typeError('a decimal string, e.g. "418.6"') })
  .max(40, 'is longer than 40 characters')
  .regex(plainDecimal, 'must be a plain decimal price in the market\'s currency, e.g. "418.6"')
  .transform((text, context): Price => {
    try {
      return parsePrice(text)
    } catch (error) {
      context.addIssue({
        code: 'custom',
        message: `is not a valid price: ${error instanceof DomainRuleError ? error.shortMessage : String(error)}`,
      })
      return z.NEVER
    }
  })

const exchangeProblem = 'must be 0 (US), 1 (HK) or 3 (KR)'

const jsonChainId = z
  .number({ error: typeError('a number, e.g. 31337') })
  .int('must be a whole number')
  .positive('must be positive')
  .max(Number.MAX_SAFE_INTEGER, 'is too large')

const jsonExchange = z
  .number({ error: typeError('a number: 0 (US), 1 (HK) or 3 (KR)') })
  .describe('0 (US), 1 (HK) or 3 (KR)')
  .refine(isExchangeCode, exchangeProblem)
  .transform((code) => code as ExchangeCode)

/** A query parameter holding a whole number, e.g. `chainId=31337`; `expected` completes "must be". */
export const queryInteger = (expected: string) =>
  z
    .string({ error: typeError(expected) })
    .regex(/^\d{1,15}$/, `must be ${expected}`)
    .transform(Number)

/** A query parameter holding a chain id. */
export const queryChainId = queryInteger('a positive whole number, e.g. 31337').refine(
  (chainId) => chainId > 0,
  'must be positive',
)

const queryExchange = queryInteger('0 (US), 1 (HK) or 3 (KR)')
  .refine(isExchangeCode, exchangeProblem)
  .transform((code) => code as ExchangeCode)

const commonFields = {
  ticker,
  side: sideField,
  amountIn,
  amountType: amountType.optional(),
  limitPrice: limitPrice.optional(),
}

/** A sell's amount is always a share quantity. */
function sellIsStocktoken(
  request: { side: 'buy' | 'sell'; amountType?: 'stablecoin' | 'stocktoken' | undefined },
  context: z.RefinementCtx,
) {
  if (request.side === 'sell' && request.amountType === 'stablecoin')
    context.addIssue({
      code: 'custom',
      path: ['amountType'],
      message: 'must be "stocktoken" (or omitted) for a sell: a sell\'s amountIn is a share quantity',
    })
}

/** Messages of a strict object: an unknown key names the known ones; a non-object says what to send. */
export const unknownField = (kind: string, fields: readonly string[]) => ({
  error: (issue: { code?: string }) =>
    issue.code === 'unrecognized_keys'
      ? `is not a ${kind} (known: ${fields.join(', ')})`
      : issue.code === 'invalid_type'
        ? `must be a JSON object with the fields ${fields.join(', ')}`
        : undefined,
})

const fieldNames = ['chainId', 'ticker', 'exchange', 'side', 'amountIn', 'amountType', 'limitPrice'] as const

/**
 * The body of `POST /v1/swaps`: `{chainId, ticker, exchange, side, amountIn, amountType?,
 * limitPrice?}`; amounts and prices as decimal strings, unknown fields refused.
 */
export const swapRequestSchema = z
  .strictObject(
    { chainId: jsonChainId, exchange: jsonExchange, ...commonFields },
    unknownField('field of a swap request', fieldNames),
  )
  .superRefine(sellIsStocktoken)

/** A validated swap request (the body of `POST /v1/swaps`, or the query of `GET /v1/quotes`). */
export type SwapRequest = z.output<typeof swapRequestSchema>

/** The query of `GET /v1/quotes`: the swap request's fields as query parameters. */
export const quoteQuerySchema = z
  .strictObject(
    { chainId: queryChainId, exchange: queryExchange, ...commonFields },
    unknownField('query parameter of /v1/quotes', fieldNames),
  )
  .superRefine(sellIsStocktoken)

/** The `Idempotency-Key` header of `POST /v1/swaps`. */
export const idempotencyKeySchema = z
  .string({
    error: typeError('a single header value'),
  })
  .min(1, 'must not be empty')
  .max(200, 'is longer than 200 characters')
  .regex(/^[A-Za-z0-9._:-]+$/, 'may contain only letters, digits and . _ : -')

/** The `:id` of `GET /v1/swaps/:id`: an execution id. */
export const executionIdSchema = z
  .string()
  .regex(/^[1-9]\d{0,14}$/, 'must be a positive whole number (an executionId returned by POST /v1/swaps)')
  .transform(Number)

// ---------------------------------------------------------------------------------------------
// Requests: the operator's routes (executions, kill switch, strategies, positions, events)

/** `a,b,c` → the distinct items, each one of `allowed`. */
const commaList = <Item extends string>(allowed: readonly Item[], what: string) =>
  z
    .string({ error: typeError(`a comma-separated list of ${what}`) })
    .max(500, 'is longer than 500 characters')
    .transform((text, context): Item[] => {
      const items = [...new Set(text.split(',').map((item) => item.trim()))]
      const unknown = items.filter((item) => !(allowed as readonly string[]).includes(item))
      if (unknown.length > 0) {
        context.addIssue({
          code: 'custom',
          message: `names ${unknown.map((item) => JSON.stringify(item)).join(', ')}, not ${what}: use ${allowed.join(', ')}`,
        })
        return z.NEVER
      }
      return items as Item[]
    })

const isoTimeText =
  /^(?<date>\d{4}-\d{2}-\d{2})(?:[T ](?<time>\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(?<offset>Z|[+-]\d{2}:?\d{2})?)?$/

/** Unix ms of an ISO 8601 date or date-time (UTC unless it names an offset), NaN for anything else. */
function parseIsoTime(text: string): number {
  const groups = isoTimeText.exec(text)?.groups
  if (!groups?.date) return Number.NaN
  if (!groups.time) return Date.parse(groups.date)
  const offset = (groups.offset ?? 'Z').replace(/^([+-]\d{2})(\d{2})$/, '$1:$2')
  return Date.parse(`${groups.date}T${groups.time}${offset}`)
}

/** A time: Unix milliseconds, or an ISO 8601 date or date-time. */
export const queryTime = z
  .string({ error: typeError('a time: Unix milliseconds or ISO 8601, e.g. "2025-06-02T14:30:00Z"') })
  .max(40, 'is longer than 40 characters')
  .describe('Unix milliseconds, or ISO 8601 (e.g. 2025-06-02 or 2025-06-02T14:30:00Z; UTC without an offset)')
  .transform((text, context): number => {
    const ms = /^\d{1,15}$/.test(text) ? Number(text) : parseIsoTime(text)
    if (Number.isNaN(ms)) {
      context.addIssue({
        code: 'custom',
        message:
          'must be Unix milliseconds or an ISO 8601 date or date-time, e.g. 1717338600000 or "2025-06-02T14:30:00Z"',
      })
      return z.NEVER
    }
    return ms
  })

/**
 * The largest page of `GET /v1/executions`: a page is read and serialized in one go on the daemon's
 * only thread, so its size bounds how long one request holds it (about 5 ms for 200 executions).
 */
export const maxExecutionPage = 200

const executionsQueryFields = [
  'state',
  'chainId',
  'ticker',
  'strategy',
  'since',
  'until',
  'limit',
  'cursor',
  'intentId',
] as const

/** The query of `GET /v1/executions`. */
export const executionsQuerySchema = z
  .strictObject(
    {
      state: commaList<ExecutionState>(executionStates, 'execution states')
        .describe(`comma-separated states: ${executionStates.join(', ')}`)
        .optional(),
      chainId: queryChainId.optional(),
      ticker: z.string().min(1, 'must not be empty').max(32, 'is longer than 32 characters').optional(),
      strategy: z.string().min(1, 'must not be empty').max(100, 'is longer than 100 characters').optional(),
      since: queryTime.describe('created at or after this time').optional(),
      until: queryTime.describe('created before this time').optional(),
      limit: queryInteger(`a whole number from 1 to ${maxExecutionPage}`)
        .refine(
          (limit) => limit >= 1 && limit <= maxExecutionPage,
          `must be from 1 to ${maxExecutionPage}: page with cursor for more`,
        )
        .describe(`page size, 1 to ${maxExecutionPage} (default 100)`)
        .optional(),
      cursor: z
        .string()
        .max(40, 'is not a cursor of this API: pass nextCursor of the previous page unchanged')
        .transform((cursor, context): number => {
          const beforeId = decodeExecutionCursor(cursor)
          if (beforeId === undefined) {
            context.addIssue({
              code: 'custom',
              message: 'is not a cursor of this API: pass nextCursor of the previous page unchanged',
            })
            return z.NEVER
          }
          return beforeId
        })
        .describe('nextCursor of the previous page')
        .optional(),
      intentId: z
        .string()
        .min(1, 'must not be empty')
        .max(500, 'is longer than 500 characters')
        .describe(
          'the intent id exactly as recorded (`api:<Idempotency-Key>` for POST /v1/swaps): its execution, if any',
        )
        .optional(),
    },
    unknownField('query parameter of /v1/executions', executionsQueryFields),
  )
  .superRefine((query, context) => {
    if (query.since !== undefined && query.until !== undefined && query.until <= query.since)
      context.addIssue({ code: 'custom', path: ['until'], message: 'must be after since' })
  })

/** A query that takes no parameter: any is refused by name. */
export const noQuerySchema = z.strictObject(
  {},
  {
    error: (issue) =>
      issue.code === 'unrecognized_keys' ? 'is not accepted: this route takes no query parameter' : undefined,
  },
)

/** The query of `GET /v1/positions`. */
export const positionsQuerySchema = z.strictObject(
  { chainId: queryChainId.optional() },
  unknownField('query parameter of /v1/positions', ['chainId']),
)

const reason = (maxLength: number) =>
  z
    .string({ error: typeError('a string saying why') })
    .trim()
    .min(1, 'must not be empty: say why')
    .max(maxLength, `is longer than ${maxLength} characters`)

/** The body of `POST /v1/executions/:id/cancel` (optional). */
export const cancelBodySchema = z.strictObject(
  { reason: reason(500).describe("why; shown in the execution's reason").optional() },
  unknownField('field of a cancel request', ['reason']),
)

/** The body of `POST /v1/kill-switch/halt`. */
export const haltBodySchema = z.strictObject(
  { reason: reason(500).describe('why trading stops, e.g. "operator: unexpected fills"') },
  unknownField('field of a halt request', ['reason']),
)

/** The body of `POST /v1/kill-switch/resume` and of a strategy switch (optional). */
export const optionalReasonBodySchema = z.strictObject(
  { reason: reason(500).optional() },
  unknownField('field of this request', ['reason']),
)

/** The `:id` of `/v1/strategies/:id/…`: a strategy id of the config. */
export const strategyIdSchema = z
  .string()
  .min(1, 'must not be empty')
  .max(100, 'is longer than 100 characters')
  .describe('a strategy id of the config (GET /v1/strategies lists them)')

/** The `:id` of `/v1/executions/:id`. */
export const executionIdParamSchema = z
  .string()
  .regex(/^[1-9]\d{0,14}$/, 'must be a positive whole number (an executionId)')
  .transform(Number)

const eventIdText = z
  .string({ error: typeError('an event id: a whole number') })
  .regex(/^\d{1,15}$/, 'must be an event id: a whole number, 0 for the beginning')
  .transform(Number)

/** The query of `GET /v1/events`. */
export const eventsQuerySchema = z.strictObject(
  {
    after: eventIdText
      .describe('resume after this event id (0: from the beginning); Last-Event-ID wins when both are sent')
      .optional(),
    kinds: commaList<LedgerEventKind>(ledgerEventKinds, 'event kinds')
      .describe(`comma-separated kinds: ${ledgerEventKinds.join(', ')}`)
      .optional(),
  },
  unknownField('query parameter of /v1/events', ['after', 'kinds']),
)

/** The `Last-Event-ID` header of `GET /v1/events`. */
export const lastEventIdSchema = eventIdText

// ---------------------------------------------------------------------------------------------
// Requests: the dashboard's routes (reports, series, discrepancies, login)

/**
 * The most rows a list table of `GET /v1/reports/:name` holds (`limit`): the report is built and
 * serialized in one go on the daemon's only thread. `stockroute report --all` reads every row.
 */
export const maxReportRows = 10_000

const reportQueryFields = ['chainId', 'ticker', 'strategy', 'since', 'until', 'limit', 'all'] as const

/** The query of `GET /v1/reports/:name`: the filters of `stockroute report`. */
export const reportQuerySchema = z
  .strictObject(
    {
      chainId: queryChainId.optional(),
      ticker: z.string().min(1).max(32).describe('one ticker, exactly as recorded').optional(),
      strategy: z.string().min(1).max(64).describe('one strategy id').optional(),
      since: queryTime.describe('at or after this time').optional(),
      until: queryTime.describe('before this time').optional(),
      limit: queryInteger(`a whole number from 1 to ${maxReportRows}`)
        .refine(
          (limit) => limit >= 1 && limit <= maxReportRows,
          `must be from 1 to ${maxReportRows}: narrow with since and until for older rows`,
        )
        .describe(`list tables (executions, fills): the newest N rows, 1 to ${maxReportRows}; default 1000`)
        .optional(),
      all: z
        .string()
        .describe(
          `not served: a report of every row would hold the daemon; use limit (at most ${maxReportRows}) with since/until, or \`stockroute report <name> --all\` on the ledger`,
        )
        .optional(),
    },
    unknownField('query parameter of /v1/reports/:name', reportQueryFields),
  )
  .superRefine((query, context) => {
    if (query.since !== undefined && query.until !== undefined && query.until <= query.since)
      context.addIssue({ code: 'custom', path: ['until'], message: 'must be after since' })
    if (query.all !== undefined)
      context.addIssue({
        code: 'custom',
        path: ['all'],
        message: `is not served by the control API (every row of a large ledger would hold the daemon): use limit (at most ${maxReportRows}) with since and until, or run \`stockroute report <name> --all\`, which reads the ledger itself`,
      })
  })

/** A report name, as a path segment. */
export const reportNameSchema = z
  .enum(reportNames, { error: typeError(`one of ${reportNames.join(', ')}`) })
  .describe(`a report: ${reportNames.join(', ')}`)

/** The query of `GET /v1/series/pnl`. */
export const pnlSeriesQuerySchema = z.strictObject(
  { chainId: queryChainId.optional() },
  unknownField('query parameter of /v1/series/pnl', ['chainId']),
)

/** The query of `GET /v1/series/latency` and `GET /v1/discrepancies`. */
export const seriesQuerySchema = (route: string) =>
  z.strictObject(
    {
      chainId: queryChainId.optional(),
      since: queryTime.describe('at or after this time').optional(),
      limit: queryInteger('a whole number from 1 to 5000')
        .refine((limit) => limit >= 1 && limit <= 5000, 'must be from 1 to 5000')
        .describe('the newest N points; default 500')
        .optional(),
    },
    unknownField(`query parameter of ${route}`, ['chainId', 'since', 'limit']),
  )

/** The body of `POST /dashboard/login`: the control API token, pasted by the operator. */
export const loginBodySchema = z.strictObject(
  {
    token: z
      .string({ error: typeError('the control API token') })
      .min(1, 'must not be empty')
      .max(512),
  },
  unknownField('field of the login', ['token']),
)

// ---------------------------------------------------------------------------------------------
// Replies

const isoTime = z.iso.datetime().describe('ISO 8601, UTC, e.g. "2025-06-02T14:30:00.000Z"')
const nullableIsoTime = isoTime.nullable()
/** A bigint in base units (or a signed amount) as a decimal string: JSON numbers lose precision. */
const decimal = z
  .string()
  .regex(/^-?\d+$/)
  .describe('an integer in base units, as a decimal string')
const address = z.string().regex(/^0x[0-9a-fA-F]{40}$/)
const hash = z.string().regex(/^0x[0-9a-fA-F]{64}$/)
const side = z.enum(['buy', 'sell'])
const exchange = z.literal(Object.values(exchangeCodes)).describe('0 (US), 1 (HK) or 3 (KR)')
const tokenKind = z
  .enum(['stock', 'share'])
  .describe('stock: a StockToken, whole shares (0 decimals); share: a ShareToken, 18 decimals')

/** The error body of every control API error. */
export const errorBodySchema = z
  .object({
    code: z.enum(controlApiErrorCodes).describe('stable: switch on it'),
    message: z.string().describe('what was wrong and how to fix it'),
    details: z
      .array(z.object({ field: z.string(), problem: z.string() }))
      .optional()
      .describe('for bad input: one entry per bad field (body field, query parameter or header)'),
  })
  .meta({ id: 'Error', description: 'Every error: a stable code, a message saying how to fix it.' })

const transactionSummarySchema = z.object({
  kind: z.enum(['approve', 'execute', 'cancel', 'gap-fill']),
  hash,
  nonce: z.number().int(),
  status: z.enum(['signed', 'broadcast', 'mined', 'failed', 'replaced', 'dropped']),
})

const fillSummarySchema = z.object({
  txHash: hash,
  logIndex: z.number().int(),
  amountIn: decimal,
  amountOut: decimal,
  feeAmount: decimal,
})

/** An execution as `GET /v1/swaps/:id` and `GET /v1/executions` return it. */
export const executionViewSchema = z
  .object({
    executionId: z.number().int(),
    intentId: z.string(),
    state: z.enum(executionStates),
    reason: z.string().describe('the reason of the last state change'),
    quoteId: hash.nullable(),
    chainId: z.number().int(),
    ticker: z.string(),
    exchange,
    side,
    amountIn: z.string().describe('natural units, as requested'),
    amountType: z.enum(['stablecoin', 'stocktoken']),
    limitPrice: z.string().nullable().describe("in the market's currency; null without a limit"),
    strategy: z
      .string()
      .nullable()
      .describe('the strategy whose intent it is; null for API, CLI and library'),
    transactions: z.array(transactionSummarySchema).describe('never the signed bytes'),
    fills: z
      .array(fillSummarySchema)
      .describe('base units: stock and asset, as the settlement event has them'),
    createdAt: isoTime,
    updatedAt: isoTime,
  })
  .meta({
    id: 'Execution',
    description: 'An execution: what it was asked, where it is, its transactions and fills.',
  })
export type ExecutionView = z.infer<typeof executionViewSchema>

/** A stored transaction in full: where it is on chain (never its signed bytes). */
const transactionViewSchema = transactionSummarySchema.extend({
  chainId: z.number().int(),
  from: address,
  replacesId: z.number().int().nullable().describe('the stored transaction this one replaced'),
  blockNumber: decimal.nullable(),
  blockHash: hash.nullable(),
  receiptStatus: z.enum(['success', 'reverted']).nullable(),
  error: z.string().nullable(),
  createdAt: isoTime,
  updatedAt: isoTime,
})

/** A fill in full: the settlement event's amounts, tokens and block. */
const fillViewSchema = fillSummarySchema.extend({
  quoteId: hash,
  tokenKind,
  stockToken: address,
  assetToken: address,
  assetDecimals: z.number().int(),
  stockAmount: decimal,
  assetAmount: decimal,
  blockNumber: decimal,
  blockHash: hash.nullable(),
  recordedAt: isoTime,
  reversedAt: nullableIsoTime.describe('set when a reorg took its block away (it no longer counts)'),
  reversalReason: z.string().nullable(),
})

/** `GET /v1/executions/:id`: the execution with its timeline, its transactions and fills in full. */
export const executionDetailSchema = executionViewSchema
  .extend({
    events: z.array(
      z.object({
        id: z.number().int(),
        from: z.enum(executionStates).nullable().describe('null for the creating event'),
        to: z.enum(executionStates),
        reason: z.string(),
        quoteId: hash.nullable(),
        at: isoTime,
      }),
    ),
    transactions: z.array(transactionViewSchema),
    fills: z.array(fillViewSchema),
  })
  .meta({ id: 'ExecutionDetail', description: 'An execution with its timeline, transactions and fills.' })
export type ExecutionDetailView = z.infer<typeof executionDetailSchema>

export const executionPageSchema = z.object({
  executions: z.array(executionViewSchema).describe('newest first'),
  nextCursor: z.string().nullable().describe('pass as cursor for the next page; null on the last page'),
})

export const cancelReplySchema = z.object({ cancelled: z.literal(true), execution: executionViewSchema })

/** An entry halt: a risk limit reached halted new entries (buys) by itself until a resume (docs/configuration.md). */
export const entryHaltViewSchema = z
  .object({
    chainId: z
      .number()
      .int()
      .nullable()
      .describe('the chain whose limit was reached; null: all chains together'),
    rule: z.enum(['maxDrawdownPct', 'maxDailyRealizedLoss']),
    reason: z.string(),
    figures: z.record(z.string(), z.string()).describe('the figures behind the reason, decimal strings'),
    since: isoTime,
  })
  .meta({ id: 'EntryHalt' })
export type EntryHaltView = z.infer<typeof entryHaltViewSchema>

/** The kill switch. */
export const killSwitchViewSchema = z
  .object({
    halted: z.boolean().describe('true: nothing is signed until resumed'),
    reason: z.string().nullable(),
    changedAt: nullableIsoTime,
    entryHalts: z
      .array(entryHaltViewSchema)
      .default([])
      .describe(
        'risk limits that halted new entries (buys; sells still run) until a resume, which clears them with the kill switch',
      ),
  })
  .meta({ id: 'KillSwitch' })
export type KillSwitchView = z.infer<typeof killSwitchViewSchema>

/** A TWAP's progress: shares as decimal strings, prices in the market's currency. */
export const twapProgressViewSchema = z
  .object({
    ticker: z.string().describe('the StockToken its slices trade'),
    side: z.enum(['buy', 'sell']),
    ordered: z.string().describe('the whole order, shares'),
    filled: z.string().describe('shares filled so far (slices and the remainder), from the fills'),
    remaining: z.string().describe('ordered minus filled, shares'),
    slices: z
      .object({
        planned: z.number().int().describe('slices with at least one lot'),
        due: z.number().int().describe('those whose time has come'),
        sent: z.number().int().describe('executions of its slices and remainder, in any state'),
        confirmed: z.number().int(),
      })
      .describe('the slices and what became of them'),
    window: z.object({ start: isoTime, end: isoTime }),
    nextSliceAt: isoTime.nullable().describe('when the next slice is due; null when none is left'),
    remainder: z
      .object({
        ticker: z.string().describe('the ShareToken it trades as'),
        shares: z.string(),
        status: z.enum(['waiting', 'sent', 'refused']),
        reason: z.string().nullable().describe('why it is refused (or waits); null when sent or due later'),
      })
      .nullable()
      .describe('the part that is not whole lots; null when the order is whole lots'),
    currency: z.string().describe('USD, HKD or KRW: the currency of the prices'),
    averagePrice: z
      .string()
      .nullable()
      .describe('average fill price per share (fees included on buys, net on sells)'),
    arrivalPrice: z
      .string()
      .nullable()
      .describe('the market price the engine read when it quoted the first slice; null before'),
    vsArrivalBps: z
      .string()
      .nullable()
      .describe('average fill price against the arrival price, basis points, positive: worse'),
    notes: z
      .array(z.string())
      .describe('why something is not traded: a board lot mismatch, a refused remainder'),
  })
  .meta({ id: 'TwapProgress' })
export type TwapProgressView = z.infer<typeof twapProgressViewSchema>

/** An exit a protect strategy tripped, and how its sale stands. */
export const protectiveExitViewSchema = z
  .object({
    chainId: z.number().int(),
    ticker: z.string(),
    trigger: z.enum(['stop-loss', 'take-profit', 'trailing-stop']),
    price: z.string().describe('the market price that tripped it, in `currency`'),
    currency: z.string().describe('USD, HKD or KRW'),
    quantity: z.string().describe('shares its current attempt sells'),
    attempt: z.number().int().describe('1 at the trip; one more each time a sale ended without a trade'),
    askedAt: isoTime.describe('when the current attempt was asked for'),
    intentId: z
      .string()
      .describe("the current attempt's intent id: `protect:<id>:<trigger>:<epoch>[:<attempt>]`"),
    execution: z
      .object({ id: z.number().int(), state: z.enum(executionStates) })
      .nullable()
      .describe("the current attempt's execution; null before the daemon submitted it"),
    state: z
      .enum(['asked', 'selling', 'sold', 'unsold'])
      .describe(
        'asked: not submitted yet; selling: its execution runs; sold: confirmed; unsold: ended without a trade, asked for again at retryAt',
      ),
    retryAt: isoTime.nullable().describe('when the next attempt is asked for; null unless unsold'),
  })
  .meta({ id: 'ProtectiveExit' })
export type ProtectiveExitView = z.infer<typeof protectiveExitViewSchema>

/** One configured strategy. */
export const strategyViewSchema = z
  .object({
    id: z.string(),
    kind: z.string(),
    enabled: z.boolean().describe("whether it runs now: the config's choice unless an operator switched it"),
    switched: z
      .object({ enabled: z.boolean(), reason: z.string(), at: isoTime })
      .nullable()
      .describe('the last switch through the API (kept across restarts); null when the config decides'),
    lastRun: z
      .object({
        at: isoTime,
        submitted: z.number().int(),
        refused: z.number().int(),
        error: z.string().nullable(),
        skipped: z
          .string()
          .optional()
          .describe('why it was not evaluated (marketHours "open-only" while a market it trades is closed)'),
      })
      .nullable()
      .describe("its last evaluation in this daemon's life (every strategy is evaluated at each tick)"),
    trades: z
      .object({
        submitted: z.number().int().describe('executions its intents created, in any state'),
        confirmed: z.number().int().describe('those confirmed'),
        lastAt: isoTime.nullable().describe('when the last was confirmed; null: it never traded'),
      })
      .describe("from the ledger's executions: every run, kept across restarts"),
    nextRunAt: isoTime
      .nullable()
      .describe(
        "a schedule's next cron fire; null for the other kinds (evaluated at every market-data tick) and when switched off",
      ),
    progress: twapProgressViewSchema
      .optional()
      .describe(
        "a twap strategy's progress, from the ledger's fills of its slices; absent for the other kinds",
      ),
    exits: z
      .array(protectiveExitViewSchema)
      .optional()
      .describe(
        "a protect strategy's exits tripped in its position's current epoch and how each sale stands; empty while none tripped or once the position closed; absent for the other kinds",
      ),
  })
  .meta({ id: 'Strategy' })
export type StrategyView = z.infer<typeof strategyViewSchema>

export const strategyListSchema = z.object({ strategies: z.array(strategyViewSchema) })

/** One position, amounts in base units. */
export const positionViewSchema = z
  .object({
    chainId: z.number().int(),
    tokenAddress: address,
    ticker: z.string(),
    exchange: z.number().int(),
    tokenKind: z.string().describe('stock: balance in whole shares; share: in 1e18 units of a share'),
    assetToken: address,
    assetDecimals: z.number().int(),
    balance: decimal,
    locked: decimal,
    available: decimal,
    costBasis: decimal.describe('asset base units'),
    realizedPnl: decimal.describe('asset base units'),
    avgPrice: decimal.describe('asset base units per whole share'),
    lastSeq: z.number().int(),
    updatedAt: isoTime,
  })
  .meta({ id: 'Position' })
export type PositionView = z.infer<typeof positionViewSchema>

export const positionListSchema = z.object({ positions: z.array(positionViewSchema) })

export const balancesSchema = z.object({
  chains: z.array(
    z.object({
      chainId: z.number().int(),
      wallets: z.array(
        z.object({
          address,
          native: decimal.describe("the chain's native coin, wei"),
          asset: z.object({ address, symbol: z.string(), decimals: z.number().int(), balance: decimal }),
        }),
      ),
    }),
  ),
})

/** One message of `GET /v1/events` (its `data:` line). */
export const ledgerEventViewSchema = z
  .object({
    id: z.number().int().describe('also the SSE id: resume after it with Last-Event-ID'),
    kind: z.enum(ledgerEventKinds),
    chainId: z.number().int().nullable(),
    executionId: z.number().int().nullable(),
    at: isoTime,
    data: z.record(z.string(), z.unknown()).describe('the fields of its kind (docs/control-api.md)'),
  })
  .meta({ id: 'LedgerEvent' })
export type LedgerEventView = z.infer<typeof ledgerEventViewSchema>

/** `POST /v1/swaps`: the execution recorded for the key. */
export const swapAcceptedSchema = z.object({
  executionId: z.number().int(),
  intentId: z.string(),
  state: z.enum(executionStates),
  links: z.object({ self: z.string() }),
})

/** A router quote, amounts in base units; never its signature. */
const routerQuoteViewSchema = z.object({
  quoteId: hash,
  chainId: z.number().int(),
  ticker: z.string(),
  exchange: z.number().int(),
  tokenKind,
  side,
  amountType: z.enum(['stablecoin_in', 'stocktoken_in']),
  stockToken: address,
  assetToken: address,
  amountIn: decimal,
  amountInUsed: decimal.describe('the part of amountIn the quote uses (whole lots)'),
  amountOut: decimal,
  feeAmount: decimal.describe('asset base units'),
  price: decimal.describe('asset base units per whole share'),
  expiresAt: z.number().int().describe('Unix seconds'),
})

/**
 * `GET /v1/swaps/:id`: the execution with everything a client needs to show its outcome: the quote
 * it holds, each transaction in full with what it calls (never its signed bytes), each live fill in
 * full. The CLI's `stockroute swap` through a daemon prints its result from this reply alone.
 */
export const swapExecutionSchema = executionViewSchema
  .extend({
    quote: routerQuoteViewSchema
      .extend({ assetDecimals: z.number().int() })
      .nullable()
      .describe('the quote the execution holds now (its last one); null before its first'),
    transactions: z
      .array(
        transactionViewSchema.extend({
          to: address.nullable().describe('the token (approve) or the executor (execute)'),
          gasLimit: decimal.nullable(),
          approval: z
            .object({ spender: address, amount: decimal.describe("the token's base units") })
            .nullable()
            .describe('what an approve allows; null for other kinds'),
        }),
      )
      .describe("never the signed bytes; a dry run's are `failed`: signed, never broadcast, nonces freed"),
    fills: z
      .array(fillViewSchema.extend({ ticker: z.string(), side }))
      .describe('live fills only (a fill a reorg reversed is not listed)'),
  })
  .meta({
    id: 'SwapExecution',
    description:
      'An execution with its quote, its transactions (what each calls, where it is on chain) and its fills in full.',
  })
export type SwapExecutionView = z.infer<typeof swapExecutionSchema>

/** `GET /v1/quotes`: what a swap would get now. */
export const previewViewSchema = z
  .object({
    quote: routerQuoteViewSchema,
    verdict: z.union([
      z.object({
        ok: z.literal(true),
        remainingMs: z.number(),
        effectivePrice: z.string(),
        marketPrice: z.string(),
        deviationBps: z.string(),
        marketNote: z
          .string()
          .optional()
          .describe(
            'set when the market price was read while its exchange was closed, e.g. "price from a closed market (HKEX closed: lunch break)"',
          ),
      }),
      z.object({
        ok: z.literal(false),
        rule: z.string(),
        message: z.string(),
        details: z.record(z.string(), z.union([z.string(), z.number()])),
      }),
    ]),
    riskProblem: z.string().nullable().describe('the risk limit the swap would break'),
    halted: z.string().nullable().describe("the kill switch's reason when trading is halted"),
    approvals: z.object({ currentAllowance: decimal, target: decimal, count: z.number().int() }),
    minValidityMs: z.number(),
  })
  .meta({ id: 'QuotePreview' })
export type PreviewView = z.infer<typeof previewViewSchema>

// ---------------------------------------------------------------------------------------------
// Replies: the dashboard's routes

/** A report as `runReport` makes it (src/report/types.ts). */
export const reportReplySchema = z
  .object({
    name: z.enum(reportNames),
    generatedAt: z.string(),
    filter: z.record(z.string(), z.unknown()),
    tables: z.array(
      z.object({
        key: z.string(),
        title: z.string(),
        columns: z.array(
          z.object({
            key: z.string(),
            title: z.string(),
            kind: z.string(),
            unit: z.string().optional(),
            /** A detail column: `stockroute report` shows it on a terminal only with `--wide`. */
            wide: z.literal(true).optional(),
          }),
        ),
        rows: z.array(z.record(z.string(), z.union([z.string(), z.number(), z.null()]))),
      }),
    ),
    notes: z.array(z.string()),
  })
  .meta({ id: 'Report' })

/** `GET /v1/series/pnl`: cumulative PnL and position cost per chain and asset, day by day. */
export const pnlSeriesReplySchema = z
  .object({
    series: z.array(
      z.object({
        chainId: z.number(),
        asset: z.string().describe('the asset symbol, or its address when unknown'),
        points: z.array(
          z.object({
            day: z.string().describe('UTC date'),
            atMs: z.number().describe('midnight UTC of the day'),
            realizedPnl: z.string().describe('cumulative realized PnL plus income, asset units'),
            fees: z.string().describe('cumulative fees, asset units'),
            costBasis: z
              .string()
              .describe('cumulative bought minus sold plus realized: open positions at cost'),
          }),
        ),
        costAtFills: z
          .array(
            z.object({
              atMs: z.number().describe('when the daemon recorded the fill'),
              costBasis: z.string().describe('the open positions at cost right after it, asset units'),
            }),
          )
          .describe(
            'one point per live fill of the last day, oldest first: the equity curve from the first fill on',
          ),
        marks: z
          .array(
            z.object({
              atMs: z.number(),
              marketValue: z
                .string()
                .describe('the open positions at the market (at cost when unpriced), asset units'),
              costBasis: z.string().describe('what they cost, asset units'),
              unpriced: z.number().int().describe('positions without a market price, counted at cost'),
            }),
          )
          .describe(
            'the daemon marks its open positions at the market once a minute (equity curve), last day',
          ),
      }),
    ),
  })
  .meta({ id: 'PnlSeries' })

/** `GET /v1/series/latency`: per execution, its pipeline stages' durations. */
export const latencySeriesReplySchema = z
  .object({
    points: z.array(
      z.object({
        executionId: z.number(),
        chainId: z.number(),
        atMs: z.number().describe('when the execute was signed and broadcast'),
        quoteToBroadcastMs: z.number().nullable(),
        broadcastToInclusionMs: z.number().nullable(),
      }),
    ),
  })
  .meta({ id: 'LatencySeries' })

/** `GET /v1/discrepancies`: what reconciliation found, newest first, and what became of it. */
export const discrepancyListSchema = z
  .object({
    discrepancies: z.array(
      z.object({
        eventId: z.number(),
        chainId: z.number().nullable(),
        at: z.string(),
        ticker: z.string().nullable(),
        tokenAddress: z.string().nullable(),
        kind: z.string().nullable(),
        ledger: z.string().nullable(),
        chain: z.string().nullable(),
        service: z.string().nullable(),
        resolution: z.object({
          state: z.enum(['open', 'superseded', 'adjusted', 'cleared']),
          detail: z.string(),
          at: z.string().nullable(),
        }),
      }),
    ),
  })
  .meta({ id: 'Discrepancies' })
