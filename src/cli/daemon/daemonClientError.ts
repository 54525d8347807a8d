import { StockrouteError } from '@stockroute/client/domain/errors.js'

/** Stable codes of {@link DaemonClientError}. */
export type DaemonClientErrorCode =
  /** The connection failed: nothing listens at the runtime file's URL. */
  | 'DAEMON_NOT_ANSWERING'
  /** No answer within the timeout. */
  | 'DAEMON_TIMEOUT'
  /** The control token cannot be read (variable not set, token file unreadable). */
  | 'CONTROL_TOKEN_UNAVAILABLE'
  /** 401: the token is not the daemon's. */
  | 'DAEMON_UNAUTHORIZED'
  /** Another 4xx: the API's `code` is in `apiCode`, its message in the short message. */
  | 'DAEMON_REFUSED'
  /** 5xx. */
  | 'DAEMON_FAILED'
  /** A reply that is not the JSON the contract promises. */
  | 'DAEMON_BAD_REPLY'
  /** The command needs a running daemon and there is none. */
  | 'DAEMON_NOT_RUNNING'

/**
 * A call to the running daemon's control API failed, with what to do about it: the daemon not
 * answering (and whether its process is alive), a token mismatch, or the API's own refusal
 * (`status`, `apiCode` and the field problems it listed).
 *
 * @example
 * try { await client.request('POST', '/v1/executions/4/cancel', { body: {}, schema }) }
 * catch (error) { if (error instanceof DaemonClientError && error.apiCode === 'ALREADY_SIGNED') … }
 */
export class DaemonClientError extends StockrouteError {
  override name = 'DaemonClientError'
  override readonly code: DaemonClientErrorCode
  /** The HTTP status, when the daemon answered. */
  readonly status: number | undefined
  /** The `code` of the API's error body, when it sent one (`ALREADY_SIGNED`, `NOT_FOUND`…). */
  readonly apiCode: string | undefined
  /** The `message` of the API's error body, when it sent one. */
  readonly apiMessage: string | undefined
  constructor(parameters: {
    code: DaemonClientErrorCode
    shortMessage: string
    status?: number | undefined
    apiCode?: string | undefined
    apiMessage?: string | undefined
    /** What to do, when the short message does not say it (`fix: …` under it). */
    remedy?: string | undefined
    details?: Readonly<Record<string, unknown>>
    metaMessages?: readonly string[]
    cause?: unknown
  }) {
    super(parameters)
    this.code = parameters.code
    this.status = parameters.status
    this.apiCode = parameters.apiCode
    this.apiMessage = parameters.apiMessage
  }
}
