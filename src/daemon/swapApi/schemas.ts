import { z } from 'zod'
import { DomainRuleError } from '../../domain/domainRuleError.js'
import { type ExchangeCode, isExchangeCode } from '../../domain/markets.js'
import { parsePrice } from '../../domain/unitStrings.js'
import type { Price } from '../../domain/units.js'

// The control API's inputs, validated once at the edge. Messages complete a sentence that starts
// with the field's name ("amountIn must be a plain decimal…"), so a 400 can list them as they are.

const plainDecimal = /^\d+(\.\d+)?$/

/** Missing → "is required"; present with the wrong type → `expected`. */
export const typeError = (expected: string) => (issue: { input?: unknown }) =>
  issue.input === undefined ? 'is required' : `must be ${expected}`

const ticker = z
  .string({ error: typeError('a string, e.g. "AAPL" or "AAPLs"') })
  .min(1, 'must not be empty: name a StockToken ticker, or a ShareToken ticker with the "s" suffix')
  .max(32, 'is longer than 32 characters')
  .regex(/^\S+$/, 'must not contain whitespace')

const side = z.enum(['buy', 'sell'], { error: typeError('"buy" or "sell"') })

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
  side,
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

/** The options of `startControlServer` that are data (the engine, logger and handlers are not checked here). */
export const controlServerOptionsSchema = z.object({
  host: z.string().min(1, 'must not be empty'),
  port: z
    .number()
    .int('must be a whole number')
    .min(0, 'must be 0 to 65535')
    .max(65535, 'must be 0 to 65535'),
  allowRemote: z.boolean(),
  bearerToken: z
    .string()
    .min(1, 'must not be empty: omit it to serve without a token')
    .max(4096, 'is longer than 4096 characters')
    .regex(/^[\x21-\x7e]+$/, 'may contain only printable ASCII characters without spaces')
    .optional(),
  maxBodyBytes: z
    .number()
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(16 * 1024 * 1024, 'must be at most 16 MiB'),
  extraRoutes: z.array(
    z.object({
      method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']),
      path: z
        .string()
        .regex(
          /^\/[A-Za-z0-9._~!$&'()*+,;=@/-]*$/,
          'must be an exact path starting with "/" (no query, no :name)',
        )
        .refine((path) => path !== '/v1' && !path.startsWith('/v1/'), 'must be outside /v1 (the swap API)'),
      handle: z.custom<(...args: never[]) => unknown>(
        (value) => typeof value === 'function',
        'must be a function',
      ),
    }),
  ),
})
