import { z } from 'zod'
import { type LedgerEventKind, ledgerEventKinds } from '../../store/events.js'
import { type ExecutionState, executionStates } from '../../store/executionStates.js'
import { decodeExecutionCursor } from './executionCursor.js'
import { queryChainId, queryInteger, typeError, unknownField } from './schemas.js'

// The inputs of the control routes beyond the swap API (executions, kill switch, strategies,
// positions, balances, events), validated once at the edge. As in schemas.ts, messages complete a
// sentence that starts with the field's name.

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

const isoTime =
  /^(?<date>\d{4}-\d{2}-\d{2})(?:[T ](?<time>\d{2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)(?<offset>Z|[+-]\d{2}:?\d{2})?)?$/

/** Unix ms of an ISO 8601 date or date-time (UTC unless it names an offset), NaN for anything else. */
function parseIsoTime(text: string): number {
  const groups = isoTime.exec(text)?.groups
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
      limit: queryInteger('a whole number from 1 to 500')
        .refine((limit) => limit >= 1 && limit <= 500, 'must be from 1 to 500')
        .describe('page size, 1 to 500 (default 100)')
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
