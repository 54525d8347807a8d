import type { z } from 'zod'
import { ControlApiError } from '../errors.js'
import type { ControlRequest } from '../types.js'
import { zodProblems } from './zodProblems.js'

/**
 * The route's `:name` segment, validated by `schema`; a bad one is a 400 naming it.
 *
 * @example
 * const executionId = readPathParam(request, 'id', executionIdParamSchema, 'execution id') // 12
 */
export function readPathParam<Schema extends z.ZodType>(
  request: Pick<ControlRequest, 'params'>,
  name: string,
  schema: Schema,
  what: string,
): z.output<Schema> {
  const value = request.params[name]
  const parsed = schema.safeParse(value)
  if (parsed.success) return parsed.data
  const problems = zodProblems(parsed.error, name).map(({ problem }) => ({ field: name, problem }))
  throw new ControlApiError({
    status: 400,
    code: 'BAD_REQUEST',
    message: `The ${what} ${JSON.stringify(value)} ${problems[0]?.problem ?? 'is invalid'}.`,
    problems,
  })
}
