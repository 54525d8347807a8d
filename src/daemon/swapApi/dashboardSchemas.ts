import { z } from 'zod'
import { reportNames } from '../../report/types.js'
import { queryTime } from './controlSchemas.js'
import { queryChainId, queryInteger, typeError, unknownField } from './schemas.js'

// The inputs and replies of the routes the dashboard reads (reports, series, discrepancies) and of
// its login, validated once at the edge like the other control routes.

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
      limit: queryInteger('a whole number from 1 to 100000')
        .refine((limit) => limit >= 1 && limit <= 100_000, 'must be from 1 to 100000')
        .describe('list tables (executions, fills): the newest N rows; default 1000')
        .optional(),
      all: z.enum(['true']).describe('list tables: every row selected').optional(),
    },
    unknownField('query parameter of /v1/reports/:name', reportQueryFields),
  )
  .superRefine((query, context) => {
    if (query.since !== undefined && query.until !== undefined && query.until <= query.since)
      context.addIssue({ code: 'custom', path: ['until'], message: 'must be after since' })
    if (query.limit !== undefined && query.all !== undefined)
      context.addIssue({ code: 'custom', path: ['all'], message: 'cannot be given with limit: choose one' })
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
          z.object({ key: z.string(), title: z.string(), kind: z.string(), unit: z.string().optional() }),
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
