import { StockrouteError } from '@stockroute/client/domain/errors.js'
import { type ExecutionRecord, ExecutionStateError, terminalExecutionStates } from '../store/executions.js'
import type { EngineContext } from './context.js'
import { ExecutionStop } from './errors.js'
import { announceTransitions, moveExecution } from './moveExecution.js'
import { pendingMoves, writePendingQuote } from './pendingQuote.js'

/**
 * Records why an execution stopped: the state an {@link ExecutionStop} names, `failed` for anything
 * else. An execution already terminal (or submitted, which only the chain ends) is left as it is.
 */
export function stopExecution(context: EngineContext, executionId: number, error: unknown): ExecutionRecord {
  const current = context.ledger.executions.getExecution(executionId)
  if (!current) throw error
  const terminal: readonly string[] = terminalExecutionStates
  // Another worker moved it first: it owns the execution now.
  const lostRace = error instanceof ExecutionStateError && error.code === 'EXECUTION_STATE_CONFLICT'
  if (lostRace || terminal.includes(current.state) || current.state === 'submitted') {
    if (!(error instanceof ExecutionStop))
      context.logger?.error({ executionId, error: describe(error) }, 'execution interrupted after submission')
    return current
  }
  const [to, reason] =
    error instanceof ExecutionStop
      ? [error.to, error.reason]
      : (['failed', `stopped by an error: ${describe(error)}`] as const)
  // A quote that arrived and was not stored yet is stored with the stop, in one commit, when the
  // execution is still where the quote found it.
  const quoted = error instanceof ExecutionStop ? error.quoted : undefined
  if (quoted && quoted.from.state === current.state && quoted.from.version === current.version) {
    const stopped = context.ledger.atomically(() => {
      const record = writePendingQuote(context, quoted, { checkRisk: false })
      return context.ledger.executions.transition(record.id, record, to, reason)
    })
    announceTransitions(context, stopped, 1 + pendingMoves(quoted))
    return stopped
  }
  // From intent, `expired` is not a move: nothing was quoted yet.
  const state = current.state === 'intent' && to === 'expired' ? 'failed' : to
  return moveExecution(context, current, state, reason)
}

/** An error's message for a reason or a log line. */
export function describe(error: unknown): string {
  if (error instanceof StockrouteError) return error.shortMessage
  if (error instanceof Error) return error.message
  return String(error)
}
