// The execution state machine: its states, the moves allowed between them, and the error of a move
// refused. The repository that stores executions is in executions.ts.
import { StockrouteError } from '@stockroute/client/domain/errors.js'

// ---------------------------------------------------------------------------------------------
// States and the transition table

/** The states of one execution. The last four are terminal. */
export const executionStates = [
  'intent',
  'quoting',
  'quoted',
  'approving',
  'submitted',
  'confirmed',
  'failed',
  'expired',
  'rejected',
] as const
export type ExecutionState = (typeof executionStates)[number]

/** Terminal states: only a reorg that removes the deciding transaction leaves them (back to submitted). */
export const terminalExecutionStates = ['confirmed', 'failed', 'expired', 'rejected'] as const
export type TerminalExecutionState = (typeof terminalExecutionStates)[number]

/** The terminal states of an execution that traded nothing: a sale to ask for again, a `failure` to notify. */
export const statesEndedWithoutTrade = ['failed', 'expired', 'rejected'] as const satisfies readonly Exclude<
  TerminalExecutionState,
  'confirmed'
>[]

/**
 * Whether `state` ended an execution without a trade (failed, expired, rejected).
 *
 * @example
 * endedWithoutTrade('rejected') // true
 * endedWithoutTrade('confirmed') // false
 */
export function endedWithoutTrade(state: string): boolean {
  return (statesEndedWithoutTrade as readonly string[]).includes(state)
}

/**
 * Every allowed move. The happy path is intent → quoting → quoted → (approving →) submitted →
 * confirmed. A quote with too little validity left is dropped for a new one (quoted → quoting, and
 * approving → quoting when approvals outlived it; quoting → quoting when a restart abandoned the
 * request in flight). `rejected` is a refusal before anything is
 * broadcast for the execute (risk limit, kill switch, guard), `expired` a quote that ran out
 * (including a submitted transaction cancelled by replacement or reverted for expiry), `failed`
 * anything else. Once submitted, only the chain decides: confirmed, failed or expired; and a reorg
 * that takes the deciding transaction out of the chain moves a confirmed, failed or expired
 * execution back to submitted, until its transaction lands again.
 */
export const executionTransitions = {
  intent: ['quoting', 'rejected', 'failed'],
  quoting: ['quoting', 'quoted', 'rejected', 'failed', 'expired'],
  quoted: ['approving', 'submitted', 'quoting', 'rejected', 'failed', 'expired'],
  approving: ['submitted', 'quoting', 'rejected', 'failed', 'expired'],
  submitted: ['confirmed', 'failed', 'expired'],
  confirmed: ['submitted'],
  failed: ['submitted'],
  expired: ['submitted'],
  rejected: [],
} as const satisfies Record<ExecutionState, readonly ExecutionState[]>

/**
 * Whether `from → to` is in {@link executionTransitions}.
 *
 * @example
 * isAllowedTransition('quoted', 'approving') // true
 * isAllowedTransition('submitted', 'quoting') // false: a sent transaction is never re-quoted
 */
export function isAllowedTransition(from: ExecutionState, to: ExecutionState): boolean {
  const allowed: readonly ExecutionState[] = executionTransitions[from] ?? []
  return allowed.includes(to)
}

/**
 * Whether a state is terminal.
 *
 * @example
 * isTerminalExecutionState('expired') // true
 */
export function isTerminalExecutionState(state: ExecutionState): state is TerminalExecutionState {
  return (terminalExecutionStates as readonly ExecutionState[]).includes(state)
}

// ---------------------------------------------------------------------------------------------
// Errors

/** Stable codes of {@link ExecutionStateError}. */
export type ExecutionStateErrorCode =
  | 'ILLEGAL_TRANSITION'
  | 'EXECUTION_STATE_CONFLICT'
  | 'EXECUTION_NOT_FOUND'
  | 'DUPLICATE_INTENT'
  | 'DUPLICATE_QUOTE'

/**
 * An execution could not be created or moved: the move is not in the transition table
 * (`ILLEGAL_TRANSITION`), someone else moved it first (`EXECUTION_STATE_CONFLICT`, with
 * `details.actual`), it does not exist, or its intent or quote id already has an execution
 * (`DUPLICATE_INTENT`, `DUPLICATE_QUOTE`, with `details.existingExecutionId`).
 *
 * @example
 * try {
 *   ledger.executions.transition(id, 'quoted', 'approving', 'allowance too low')
 * } catch (error) {
 *   if (error instanceof ExecutionStateError && error.code === 'EXECUTION_STATE_CONFLICT') reload()
 * }
 */
export class ExecutionStateError extends StockrouteError {
  override name = 'ExecutionStateError'
  override readonly code: ExecutionStateErrorCode
  constructor(parameters: {
    code: ExecutionStateErrorCode
    shortMessage: string
    /** What to do, when `shortMessage` does not say it. */
    remedy?: string | undefined
    details: Readonly<Record<string, unknown>>
  }) {
    super(parameters)
    this.code = parameters.code
  }
}
