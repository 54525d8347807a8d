import { StockrouteError } from '../../domain/errors.js'

/** One bad input: the field (body field, query parameter or header) and what is wrong with it. */
export type FieldProblem = { field: string; problem: string }

/** Stable codes of {@link ControlApiError}: the `code` of every error body the control API sends. */
export const controlApiErrorCodes = [
  'BAD_REQUEST',
  'UNAUTHORIZED',
  /** A dashboard session's state-changing request without its X-CSRF-Token (403). */
  'FORBIDDEN',
  'NOT_FOUND',
  'METHOD_NOT_ALLOWED',
  'PAYLOAD_TOO_LARGE',
  'UNSUPPORTED_MEDIA_TYPE',
  'IDEMPOTENCY_KEY_REUSED',
  /** The engine refused the intent (a market rule, an inactive token): the message says what to change. */
  'INVALID_INTENT',
  /** The request names a chain the daemon does not trade on. */
  'UNKNOWN_CHAIN',
  /** The service refused the quote request (400/404 from the service): sent as 422. */
  'SERVICE_REFUSED',
  /** The service is unreachable, failing or rate limiting: sent as 503, retry later. */
  'SERVICE_UNAVAILABLE',
  /** A chain's node did not answer a read (balances): sent as 503, retry later. */
  'CHAIN_UNAVAILABLE',
  /** The engine is shutting down and takes no new intents: sent as 503. */
  'ENGINE_CLOSED',
  /** A cancel came too late: a transaction of the execution is signed, only the chain decides now (409). */
  'ALREADY_SIGNED',
  /** A cancel came too late: the execution already ended (409). */
  'ALREADY_FINISHED',
  'INTERNAL',
] as const
export type ControlApiErrorCode = (typeof controlApiErrorCodes)[number]

/** The error body of every control API error. */
export type ControlApiErrorBody = { code: ControlApiErrorCode; message: string; details?: FieldProblem[] }

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
  constructor(parameters: {
    status: number
    code: ControlApiErrorCode
    message: string
    problems?: readonly FieldProblem[] | undefined
    headers?: Readonly<Record<string, string>> | undefined
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
