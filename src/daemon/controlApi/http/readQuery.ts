import type { z } from 'zod'
import type { FieldProblem } from '../contract.js'
import type { ControlRequest } from '../types.js'
import { invalidInput } from './invalidInput.js'
import { zodProblems } from './zodProblems.js'

/**
 * The request's query, validated by `schema` (a strict object of string fields): a parameter given
 * twice, an unknown one (`__proto__` and `constructor` included) or a bad value is a 400 naming each.
 *
 * @example
 * const query = readQuery(request, positionsQuerySchema, 'Invalid positions query')
 * query.chainId // number | undefined
 */
export function readQuery<Schema extends z.ZodType>(
  request: Pick<ControlRequest, 'query'>,
  schema: Schema,
  what: string,
): z.output<Schema> {
  const problems: FieldProblem[] = []
  // Own entries only: a parameter named like a built-in (`__proto__`, `constructor`) is a name
  // like any other, refused by the schema as unknown, never taken for one given before.
  const given = new Map<string, string>()
  for (const [name, value] of request.query) {
    if (given.has(name)) problems.push({ field: name, problem: 'is given more than once: give it once' })
    given.set(name, value)
  }
  const parsed = schema.safeParse(Object.fromEntries(given))
  if (!parsed.success) problems.push(...zodProblems(parsed.error, 'query'))
  if (!parsed.success || problems.length > 0) throw invalidInput(what, problems)
  return parsed.data
}
