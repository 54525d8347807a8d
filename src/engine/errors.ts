import { StockrouteError } from '@stockroute/client/domain/errors.js'
import type { PendingQuote } from './types.js'

/** Stable codes of {@link EngineError}. */
export type EngineErrorCode =
  /** The configuration and the service or chain disagree (pinned executor, operator, chain id). */
  | 'ENGINE_SETUP_FAILED'
  /** An intent is malformed or breaks a market rule before anything is asked of the service. */
  | 'INVALID_INTENT'
  /** The chain of an intent is not configured. */
  | 'UNKNOWN_CHAIN'
  /** A wallet that is not (or no longer) configured on the chain. */
  | 'UNKNOWN_WALLET'
  /** The engine was closed. */
  | 'ENGINE_CLOSED'
  /** No execution with that id in this ledger. */
  | 'EXECUTION_NOT_FOUND'

/**
 * The engine cannot start or cannot take an intent. Executions that start and then stop (a guard
 * rejection, a revert, an expiry) are not errors: they end in a terminal state with a reason.
 *
 * @example
 * try {
 *   await engine.execute(intent)
 * } catch (error) {
 *   if (error instanceof EngineError && error.code === 'INVALID_INTENT') console.error(error.shortMessage)
 * }
 */
export class EngineError extends StockrouteError {
  override name = 'EngineError'
  override readonly code: EngineErrorCode
  constructor(parameters: {
    code: EngineErrorCode
    shortMessage: string
    /** What to do, when `shortMessage` does not say it. */
    remedy?: string | undefined
    details?: Readonly<Record<string, unknown>>
    metaMessages?: readonly string[]
    cause?: unknown
  }) {
    super(parameters)
    this.code = parameters.code
  }
}

/** Stable codes of {@link ExecutionStop}, one per terminal state it records. */
export type ExecutionStopCode = 'EXECUTION_REJECTED' | 'EXECUTION_EXPIRED' | 'EXECUTION_FAILED'

const stopCodes = {
  rejected: 'EXECUTION_REJECTED',
  expired: 'EXECUTION_EXPIRED',
  failed: 'EXECUTION_FAILED',
} as const satisfies Record<ExecutionStop['to'], ExecutionStopCode>

/**
 * Why an execution stops before its execute is broadcast, carried from deep in the pipeline to the
 * one place that records the terminal state (`rejected`, `expired` or `failed`) with `reason`. Its
 * `shortMessage` and `message` are the reason; it has no remedy of its own (the reason says what
 * happened, and the execution's end is the answer, not an error of the caller).
 */
export class ExecutionStop extends StockrouteError {
  override name = 'ExecutionStop'
  declare readonly code: ExecutionStopCode
  /** The quote that arrived before the stop, not yet written: it is stored with the stop, in one commit. */
  readonly quoted: PendingQuote | undefined
  constructor(
    readonly to: 'rejected' | 'expired' | 'failed',
    readonly reason: string,
    options?: { cause?: unknown; quoted?: PendingQuote | undefined },
  ) {
    super({ code: stopCodes[to], shortMessage: reason, cause: options?.cause })
    this.quoted = options?.quoted
  }
}
