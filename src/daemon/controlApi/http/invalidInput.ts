import type { FieldProblem } from '../contract.js'
import { ControlApiError } from '../errors.js'

/**
 * The 400 of a bad input: `what` (e.g. "Invalid executions query") then every problem, field by
 * field, in the message and in `details`.
 *
 * @example
 * throw invalidInput('Invalid halt request', [{ field: 'reason', problem: 'is required' }])
 * // 400 {"code":"BAD_REQUEST","message":"Invalid halt request: reason is required.","details":[…]}
 */
export function invalidInput(what: string, problems: readonly FieldProblem[]): ControlApiError {
  return new ControlApiError({
    status: 400,
    code: 'BAD_REQUEST',
    message: `${what}: ${problems.map(({ field, problem }) => `${field} ${problem}`).join('; ')}.`,
    problems,
  })
}
