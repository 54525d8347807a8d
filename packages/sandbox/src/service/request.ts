import type { IncomingHttpHeaders } from 'node:http'
import { isAddress } from 'viem'
import { z } from 'zod'
import { badRequest } from './errors.js'

/** A request as handlers see it: parsed once, at the edge. */
export type SandboxRequest = {
  method: string
  path: string
  /** Query pairs in arrival order (repeated keys kept, for signature checks). */
  queryPairs: [string, string][]
  /** The query exactly as received (the text after `?`): what an API-key signature covers. */
  rawQuery: string
  headers: IncomingHttpHeaders
  body: string
  /** Path parameters of the matched route. */
  params: Record<string, string>
}

/**
 * Query pairs as one object, refusing a parameter given twice (`?page=1&page=2` is ambiguous).
 */
export function queryObject(request: SandboxRequest): Record<string, string> {
  const result: Record<string, string> = {}
  for (const [key, value] of request.queryPairs) {
    if (Object.hasOwn(result, key)) throw badRequest(`${key}: given more than once`)
    result[key] = value
  }
  return result
}

/** Validates the query with a zod schema; the first problem becomes a 400 naming the parameter. */
export function parseQuery<Schema extends z.ZodType>(
  request: SandboxRequest,
  schema: Schema,
): z.output<Schema> {
  const parsed = schema.safeParse(queryObject(request))
  if (parsed.success) return parsed.data
  throw badRequest(describeIssues(parsed.error))
}

export function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => (issue.path.length > 0 ? `${issue.path.join('.')}: ${issue.message}` : issue.message))
    .join('; ')
}

const maxSafeDigits = 15

/** A string parameter; a missing one is reported as "is required". */
export function stringParam() {
  return z.string({
    error: (issue) => (issue.input === undefined ? 'is required' : 'must be a single text value'),
  })
}

/** An integer query parameter (decimal digits, optional minus), within bounds. */
export function intParam(options: { min?: number; max?: number } = {}) {
  const { min = Number.MIN_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER } = options
  return stringParam()
    .regex(/^-?\d+$/, 'must be an integer')
    .refine((text) => text.replace('-', '').length <= maxSafeDigits, 'is too large')
    .transform(Number)
    .refine((value) => value >= min && value <= max, `must be between ${min} and ${max}`)
}

/** `true` or `false`, nothing else. */
export const boolParam = z
  .enum(['true', 'false'], {
    error: (issue) => (issue.input === undefined ? 'is required' : 'must be true or false'),
  })
  .transform((text) => text === 'true')

/** A 0x address, checksummed or lowercase; returned lowercase for comparisons. */
export const addressParam = stringParam()
  .refine((text) => isAddress(text, { strict: false }), 'must be a 0x address of 40 hex digits')
  .transform((text) => text.toLowerCase() as `0x${string}`)

/** A non-negative decimal number as text (no exponent), kept as text. */
export const decimalParam = stringParam().regex(
  /^\d{1,60}(\.\d{1,30})?$/,
  'must be a non-negative decimal number',
)

/** A comma-separated list of non-empty items. */
export function listParam<Item extends z.ZodType<unknown, string>>(item: Item, maxItems = 100) {
  return z
    .string()
    .transform((text) => text.split(',').map((part) => part.trim()))
    .pipe(z.array(item).min(1).max(maxItems))
}
