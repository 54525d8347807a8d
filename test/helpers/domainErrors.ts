import { DomainRuleError } from '@stockroute/client/domain/domainRuleError.js'

/** Runs `run` and returns the DomainRuleError it throws (fails the test when it throws nothing else). */
export function domainError(run: () => unknown): DomainRuleError {
  try {
    run()
  } catch (error) {
    if (error instanceof DomainRuleError) return error
    throw error
  }
  throw new Error('expected a DomainRuleError, nothing was thrown')
}
