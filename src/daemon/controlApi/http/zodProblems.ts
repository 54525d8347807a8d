import type { z } from 'zod'
import type { FieldProblem } from '../contract.js'

/**
 * Turns a zod error into one problem per bad field, the field named by its path (`chainId`,
 * `limitPrice`), an unknown field by its own name, and `where` for the input as a whole.
 *
 * @example
 * const result = swapRequestSchema.safeParse({ chainId: 31337 })
 * if (!result.success) zodProblems(result.error, 'body')
 * // [{ field: 'ticker', problem: 'is required' }, { field: 'exchange', problem: 'is required' }, …]
 */
export function zodProblems(error: z.ZodError, where: string): FieldProblem[] {
  const problems: FieldProblem[] = []
  for (const issue of error.issues) {
    const field = issue.path.length > 0 ? issue.path.map(String).join('.') : where
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys) problems.push({ field: key, problem: issue.message })
      continue
    }
    problems.push({ field, problem: issue.message })
  }
  return problems
}
