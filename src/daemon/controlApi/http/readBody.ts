import type { z } from 'zod'
import type { ControlRequest } from '../types.js'
import { invalidInput } from './invalidInput.js'
import { zodProblems } from './zodProblems.js'

/**
 * The request's JSON body, validated by `schema`. With `optional`, a request without a body (no
 * `Content-Length`, or 0, and no chunked body: `curl -X POST` or `fetch` without a body) is
 * validated as `{}`; a body that is sent must be JSON (415 otherwise).
 *
 * @example
 * const { reason } = await readBody(request, cancelBodySchema, 'Invalid cancel request', { optional: true })
 */
export async function readBody<Schema extends z.ZodType>(
  request: Pick<ControlRequest, 'headers' | 'readJson'>,
  schema: Schema,
  what: string,
  options: { optional?: boolean } = {},
): Promise<z.output<Schema>> {
  const { headers } = request
  const hasBody = headers['transfer-encoding'] !== undefined || Number(headers['content-length'] ?? 0) > 0
  const body = options.optional && !hasBody ? {} : await request.readJson()
  const parsed = schema.safeParse(body)
  if (!parsed.success) throw invalidInput(what, zodProblems(parsed.error, 'body'))
  return parsed.data
}
