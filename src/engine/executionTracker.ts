import type { ExecutionRecord } from '../store/executions.js'
import type { FillRecord } from '../store/fills.js'
import type { Ledger } from '../store/openLedger.js'
import type { TransactionRecord } from '../store/transactions.js'
import { dryRunTransactionsOf } from './dryRunRecord.js'
import { EngineError } from './errors.js'

/** An execution as the ledger has it, with its transactions and fills. */
export type ExecutionOutcome = {
  execution: ExecutionRecord
  transactions: TransactionRecord[]
  fills: FillRecord[]
}

/** A recorded intent's execution, followed: its id and a promise of its end. */
export type FollowedExecution = {
  executionId: number
  /** False when the intent id was seen before: this is its execution, not a new one. */
  created: boolean
  done: Promise<ExecutionOutcome>
}

/**
 * The executions this engine runs now, by id: an intent seen again is followed, never run twice;
 * `close` waits for them.
 *
 * @example
 * const tracker = createExecutionTracker(ledger)
 * const followed = tracker.follow(intent.intentId) ?? { executionId, created: true, done: tracker.track(executionId, run) }
 */
export function createExecutionTracker(ledger: Ledger) {
  const inFlight = new Map<number, Promise<ExecutionRecord>>()
  const outcome = (executionId: number): ExecutionOutcome => {
    const execution = ledger.executions.getExecution(executionId)
    if (!execution)
      throw new EngineError({
        code: 'EXECUTION_NOT_FOUND',
        shortMessage: `Execution ${executionId} is not in this ledger: check the id, and that this process uses the ledger it was recorded in.`,
        details: { executionId },
      })
    return {
      execution,
      // A repeated dry run's transactions may be stored under an earlier one (same hash).
      transactions: dryRunTransactionsOf(
        ledger,
        execution,
        ledger.transactions.listTransactionsForExecution(executionId),
      ),
      fills: ledger.fills.listFills({ executionId }),
    }
  }
  return {
    outcome,
    /** Runs `run` as `executionId`'s execution; resolves with its outcome once it ended. */
    track(executionId: number, run: Promise<ExecutionRecord>): Promise<ExecutionOutcome> {
      inFlight.set(executionId, run)
      return run.finally(() => inFlight.delete(executionId)).then(() => outcome(executionId))
    },
    /** The execution an intent already has, followed: an intent is executed at most once. */
    follow(intentId: string): FollowedExecution | undefined {
      const existing = ledger.executions.getExecutionByIntent(intentId)
      if (!existing) return undefined
      const running = inFlight.get(existing.id)
      const done = running ? running.then(() => outcome(existing.id)) : Promise.resolve(outcome(existing.id))
      return { executionId: existing.id, created: false, done }
    },
    /** Resolves once every execution running now has ended. */
    async idle(): Promise<void> {
      await Promise.allSettled([...inFlight.values()])
    },
  }
}
