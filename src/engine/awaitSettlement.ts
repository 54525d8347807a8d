import type { ExecutionRecord } from '../store/executions.js'
import type { EngineContext } from './context.js'

/** How often the ledger is looked at while waiting, besides the settlement loop's wake-ups, ms. */
const safetyNetMs = 1_000

/**
 * Waits for a submitted execution's end. The chain's transaction manager follows its execute
 * (blocks, drops, stuck fees, a cancel once its quote can no longer land) and records what the
 * chain decided; the engine's settlement loop ends the execution from that record; this only waits
 * for that, woken by the loop. Rejects only when `signal` aborts: a submitted execution is then
 * left to the manager (and to the next start's recovery).
 *
 * @example
 * const done = await awaitSettlement(context, execution, signal)
 * done.state // 'confirmed'
 */
export async function awaitSettlement(
  context: EngineContext,
  execution: ExecutionRecord,
  signal?: AbortSignal | undefined,
): Promise<ExecutionRecord> {
  for (;;) {
    signal?.throwIfAborted()
    const woken = context.settlements.wait(execution.id, signal)
    const current = context.ledger.executions.getExecution(execution.id)
    if (!current) throw new Error(`execution ${execution.id} vanished from the ledger ${context.ledger.path}`)
    if (current.state !== 'submitted') {
      context.settlements.wake(execution.id)
      await woken.catch(() => undefined)
      return current
    }
    const timer = new Promise<void>((resolve) => setTimeout(resolve, safetyNetMs).unref())
    await Promise.race([woken, timer])
    // Resolves this round's waiter if the timer won, so none is left behind.
    context.settlements.wake(execution.id)
  }
}
