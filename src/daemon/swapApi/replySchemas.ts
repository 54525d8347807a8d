import { z } from 'zod'
import { exchangeCodes } from '../../domain/markets.js'
import { ledgerEventKinds } from '../../store/events.js'
import { executionStates } from '../../store/executionStates.js'
import { controlApiErrorCodes } from './errors.js'

// What the control API answers, as zod schemas: the view builders return the types inferred from
// them, and GET /v1/openapi.json describes the replies with them, so the document cannot drift
// from the code. A schema with a `meta({ id })` becomes a named component of the document.

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

/** The kill switch. */
export const killSwitchViewSchema = z
  .object({
    halted: z.boolean().describe('true: nothing is signed until resumed'),
    reason: z.string().nullable(),
    changedAt: nullableIsoTime,
  })
  .meta({ id: 'KillSwitch' })
export type KillSwitchView = z.infer<typeof killSwitchViewSchema>

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
      })
      .nullable()
      .describe("its last evaluation in this daemon's life"),
    nextRunAt: isoTime
      .nullable()
      .describe(
        "a schedule's next cron fire; null for the other kinds (evaluated at every market-data tick) and when switched off",
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
