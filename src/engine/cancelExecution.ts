import { StockrouteError } from '@stockroute/client/domain/errors.js'
import { type ExecutionRecord, terminalExecutionStates } from '../store/executions.js'
import type { EngineContext } from './context.js'
import { EngineError, ExecutionStop } from './errors.js'
import { stopExecution } from './stopExecution.js'
import type { ExecutionControl } from './types.js'

/** The answer to a cancel: done, or refused with why. */
export type CancelOutcome =
  | { cancelled: true; execution: ExecutionRecord }
  | {
      cancelled: false
      /** `ALREADY_SIGNED`: a transaction of it is signed, only the chain ends it; `ALREADY_FINISHED`: it is terminal. */
      code: 'ALREADY_SIGNED' | 'ALREADY_FINISHED'
      reason: string
      execution: ExecutionRecord
    }

/**
 * Why a cancelled execution's signal was aborted; its message (`cancelled: <reason>`, no remedy:
 * the cancel was asked for) becomes the execution's reason.
 */
export class CancelRequest extends StockrouteError {
  override name = 'CancelRequest'
  declare readonly code: 'EXECUTION_CANCELLED'
  constructor(shortMessage: string) {
    super({ code: 'EXECUTION_CANCELLED', shortMessage })
  }
}

/**
 * Registers a run of `executionId` for its duration: its signal aborts on the caller's signal (a
 * daemon stopping) and on a cancel. Call `release` when the run ends.
 *
 * @example
 * const control = watchExecution(context, execution.id, options.signal)
 * try { await run(control.signal) } finally { control.release() }
 */
export function watchExecution(
  context: EngineContext,
  executionId: number,
  outer: AbortSignal | undefined,
): { signal: AbortSignal; release: () => void } {
  const controller = new AbortController()
  let end = () => {}
  const ended = new Promise<void>((resolve) => {
    end = resolve
  })
  const control: ExecutionControl = { controller, signing: false, ended, end }
  context.executionControls.set(executionId, control)
  return {
    signal: outer ? AbortSignal.any([outer, controller.signal]) : controller.signal,
    release: () => {
      if (context.executionControls.get(executionId) === control)
        context.executionControls.delete(executionId)
      end()
    },
  }
}

/**
 * Called inside the wallet's critical section right before the nonce and the signature: throws
 * when the run was cancelled (or the daemon is stopping), and otherwise marks the execution as
 * signing, after which a cancel is refused. Synchronous, so no cancel slips in between.
 */
export function claimSigning(
  context: EngineContext,
  executionId: number,
  signal: AbortSignal | undefined,
): void {
  signal?.throwIfAborted()
  const control = context.executionControls.get(executionId)
  if (control) control.signing = true
}

/**
 * Cancels an execution that has nothing signed yet: a running one is aborted (the pending quote
 * or simulation call with it) and ends `rejected` with the reason; one not running (left by a
 * stopped daemon, before recovery) is moved to `rejected` directly. Refused for an execution with a
 * signed transaction (`ALREADY_SIGNED`: only the chain ends it) or a terminal one
 * (`ALREADY_FINISHED`). Throws `EXECUTION_NOT_FOUND` for an unknown id.
 *
 * @example
 * const outcome = await cancelExecution(context, 12, 'operator: wrong size')
 * if (!outcome.cancelled) console.log(outcome.code, outcome.reason)
 */
export async function cancelExecution(
  context: EngineContext,
  executionId: number,
  reason: string,
): Promise<CancelOutcome> {
  const { ledger } = context
  const execution = ledger.executions.getExecution(executionId)
  if (!execution)
    throw new EngineError({
      code: 'EXECUTION_NOT_FOUND',
      shortMessage: `There is no execution ${executionId} in the ledger.`,
      remedy:
        'check the id (`stockroute executions` lists them) and that this process uses the ledger it was recorded in',
      details: { executionId },
    })
  const refusal = refusalOf(context, execution)
  if (refusal) return refusal
  const control = context.executionControls.get(executionId)
  if (control) {
    control.controller.abort(new CancelRequest(`cancelled: ${reason}`))
    await control.ended
  } else stopExecution(context, executionId, new ExecutionStop('rejected', `cancelled: ${reason}`))
  const after = ledger.executions.getExecution(executionId) ?? execution
  return after.state === 'rejected' && after.reason.includes(`cancelled: ${reason}`)
    ? { cancelled: true, execution: after }
    : (refusalOf(context, after) ?? {
        cancelled: false,
        code: 'ALREADY_FINISHED',
        reason: `it ended ${after.state} before the cancel took effect: ${after.reason}`,
        execution: after,
      })
}

function refusalOf(context: EngineContext, execution: ExecutionRecord): CancelOutcome | undefined {
  const terminal: readonly string[] = terminalExecutionStates
  if (terminal.includes(execution.state))
    return {
      cancelled: false,
      code: 'ALREADY_FINISHED',
      reason: `execution ${execution.id} already ended ${execution.state}: ${execution.reason}`,
      execution,
    }
  const signed = context.ledger.transactions.listTransactionsForExecution(execution.id)
  if (signed.length > 0 || context.executionControls.get(execution.id)?.signing)
    return {
      cancelled: false,
      code: 'ALREADY_SIGNED',
      reason: `execution ${execution.id} has ${signed.length > 0 ? `signed ${signed.map((t) => `${t.kind} ${t.hash}`).join(', ')}` : 'its transactions being signed'}: only the chain can end it now (halt the bot to stop further trades)`,
      execution,
    }
  return undefined
}
