import type { ExecutionEvent, ExecutionPatch, ExecutionRecord, ExecutionState } from '../store/executions.js'
import type { EngineContext } from './context.js'

/**
 * Moves an execution from the state it is in to `to` (compare-and-set on its state and version: it
 * fails if another worker or process moved it since `execution` was read), appends the event with its reason, and announces it.
 *
 * @example
 * execution = moveExecution(context, execution, 'quoting', 'executor free')
 */
export function moveExecution(
  context: EngineContext,
  execution: ExecutionRecord,
  to: ExecutionState,
  reason: string,
  patch: ExecutionPatch = {},
): ExecutionRecord {
  const record = context.ledger.executions.transition(execution.id, execution, to, reason, patch)
  announceTransition(context, record)
  return record
}

/**
 * Tells the hooks and the logger about an execution's last transition. Call it after the ledger
 * transaction that made the transition has committed (inside `ledger.atomically`, move with the
 * repository and announce after).
 *
 * @example
 * const record = ledger.atomically(() => ledger.executions.transition(id, 'submitted', 'confirmed', reason))
 * announceTransition(context, record)
 */
export function announceTransition(context: EngineContext, record: ExecutionRecord): void {
  announceTransitions(context, record, 1)
}

/**
 * {@link announceTransition} for the last `count` transitions, committed together, in order.
 *
 * @example
 * announceTransitions(context, record, 2) // quoting, then quoted
 */
export function announceTransitions(context: EngineContext, record: ExecutionRecord, count: number): void {
  for (const event of context.ledger.executions.listExecutionEvents(record.id).slice(-count))
    announceEvent(context, record, event)
}

function announceEvent(context: EngineContext, record: ExecutionRecord, event: ExecutionEvent): void {
  context.logger?.info(
    {
      chainId: record.chainId,
      executionId: record.id,
      intentId: record.intentId,
      quoteId: record.quoteId,
      from: event.from,
      to: event.to,
    },
    `execution ${record.id} ${event.from ?? 'new'} → ${event.to}: ${event.reason}`,
  )
  context.hooks.onTransition?.(event, record)
}
