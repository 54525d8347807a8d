import { StockrouteError } from '@stockroute/client/domain/errors.js'
import type { ControlApiErrorBody, ControlApiErrorCode, FieldProblem } from './contract.js'
import type { ControlClientErrorReason } from './types.js'

/**
 * An HTTP error of the control API: a status, a stable `code`, a message saying what was wrong and
 * how to fix it, and for bad input the `problems` field by field.
 *
 * @example
 * throw new ControlApiError({
 *   status: 400,
 *   code: 'BAD_REQUEST',
 *   message: 'Invalid swap request: ticker is required.',
 *   problems: [{ field: 'ticker', problem: 'is required' }],
 * })
 */
export class ControlApiError extends StockrouteError {
  override name = 'ControlApiError'
  override readonly code: ControlApiErrorCode
  readonly status: number
  readonly problems: readonly FieldProblem[] | undefined
  readonly headers: Readonly<Record<string, string>>
  /**
   * Set when the client broke the request itself (closed the connection halfway): counted as a
   * client error and logged at debug only, its reply most likely never read.
   */
  readonly clientError: ControlClientErrorReason | undefined
  constructor(parameters: {
    status: number
    code: ControlApiErrorCode
    message: string
    problems?: readonly FieldProblem[] | undefined
    headers?: Readonly<Record<string, string>> | undefined
    clientError?: ControlClientErrorReason | undefined
    cause?: unknown
  }) {
    super({
      code: parameters.code,
      shortMessage: parameters.message,
      details: { status: parameters.status, problems: parameters.problems ?? [] },
      cause: parameters.cause,
    })
    this.code = parameters.code
    this.status = parameters.status
    this.problems = parameters.problems
    this.headers = parameters.headers ?? {}
    this.clientError = parameters.clientError
  }

  /** The JSON body sent for this error. */
  body(): ControlApiErrorBody {
    return this.problems
      ? { code: this.code, message: this.shortMessage, details: [...this.problems] }
      : { code: this.code, message: this.shortMessage }
  }
}

/** Stable codes of {@link ControlServerError}. */
export type ControlServerErrorCode =
  /** The host is not a loopback address and `allowRemote` is not set (or no bearer token is). */
  | 'NON_LOOPBACK_HOST'
  /** A parameter of `startControlServer` is invalid: `details.problems` says which. */
  | 'INVALID_OPTIONS'
  /** The server could not listen (port in use, address not available). */
  | 'LISTEN_FAILED'

/**
 * The control server could not start.
 *
 * @example
 * try {
 *   await startControlServer({ engine, host: '0.0.0.0', port: 8080 })
 * } catch (error) {
 *   if (error instanceof ControlServerError && error.code === 'NON_LOOPBACK_HOST') console.error(error.shortMessage)
 * }
 */
export class ControlServerError extends StockrouteError {
  override name = 'ControlServerError'
  override readonly code: ControlServerErrorCode
  constructor(parameters: {
    code: ControlServerErrorCode
    shortMessage: string
    details?: Readonly<Record<string, unknown>>
    cause?: unknown
  }) {
    super(parameters)
    this.code = parameters.code
  }
}
