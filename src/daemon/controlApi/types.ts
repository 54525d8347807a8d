import type { IncomingHttpHeaders } from 'node:http'
import type { Engine } from '../../engine/index.js'

/** What the swap API needs of the engine: recording intents, previewing them, reading executions. */
export type SwapApiEngine = Pick<Engine, 'submit' | 'preview' | 'outcome'>

/**
 * Cluster mode (docs/scale-out.md): where a swap posted to this daemon runs, here or on the daemon
 * that owns its Idempotency-Key (src/cluster/intentRouter.ts). Throws when no daemon can take it.
 */
export type SwapRouting = {
  /** This daemon's name in the cluster, sent with a forwarded swap so that it is never forwarded again. */
  nodeId: string
  destination(intent: {
    idempotencyKey: string
    chainId: number
  }): Promise<{ local: true } | { local: false; nodeId: string; controlUrl: string }>
}

/** A structured logger (pino's shape). The control server logs nothing unless given one. */
export type ControlServerLogger = {
  /** Requests the client aborted or sent malformed (see {@link ControlClientErrorReason}); none when absent. */
  debug?: ((fields: Record<string, unknown>, message: string) => void) | undefined
  info: (fields: Record<string, unknown>, message: string) => void
  warn: (fields: Record<string, unknown>, message: string) => void
  error: (fields: Record<string, unknown>, message: string) => void
}

/**
 * Why a request was the client's fault rather than the server's, as the server counts it
 * (`onClientError`): `aborted` (the connection closed before the request was whole, or before its
 * answer), `malformed` (the HTTP parser refused it: a bad request line or header, headers too
 * large), `timeout` (the request was not whole within the server's request timeout).
 */
export type ControlClientErrorReason = 'aborted' | 'malformed' | 'timeout'

/** The HTTP methods a route may serve. */
export type ControlMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE'

/** One request as a route handler sees it. */
export type ControlRequest = {
  method: string
  /** The path without the query (`/v1/swaps/12`). */
  path: string
  query: URLSearchParams
  headers: IncomingHttpHeaders
  /** Values of the route's `:name` segments, percent-decoded. */
  params: Readonly<Record<string, string>>
  /**
   * Reads the body as JSON: refuses a content type other than `application/json` (415), a body
   * above the server's `maxBodyBytes` (413), and text that is not JSON (400).
   */
  readJson: () => Promise<unknown>
  /** Aborts when the client goes away before the reply is sent. */
  signal: AbortSignal
  /** Unique per request, also in the `X-Request-Id` reply header and the log. */
  requestId: string
  /**
   * True when the request carries the control API token, or the cookie of a live dashboard session
   * (always, on a server without a token). `/v1` routes are reached only so; a route outside `/v1`
   * (`GET /health`) answers more when it is.
   */
  authenticated: boolean
}

/** A handler's answer: an object body is sent as JSON, a string as it is. */
export type ControlReply = {
  status: number
  headers?: Readonly<Record<string, string>> | undefined
  body: string | object
}

/** A route of the caller's own, served beside the swap API (e.g. `GET /health`, `GET /metrics`). */
export type ExtraRoute = {
  method: ControlMethod
  /** An exact path (no `:name` segments, no query), outside `/v1`. */
  path: string
  handle: (request: ControlRequest) => ControlReply | Promise<ControlReply>
}

/** Where a streaming route writes, for as long as it likes. */
export type ControlStreamSink = {
  /**
   * Writes `text` to the client. Resolves once the socket takes more (after `drain` when its
   * buffer is full), or at once when the stream is aborted: a slow client slows the writer down
   * instead of growing memory.
   */
  write: (text: string) => Promise<void>
  /** Aborts when the client goes away or the server closes; the stream should then return. */
  signal: AbortSignal
}

/**
 * A reply written over time (Server-Sent Events): the server sends the status and headers at once,
 * then runs `stream`, and ends the response when it returns.
 */
export type ControlStreamReply = {
  status: number
  headers?: Readonly<Record<string, string>> | undefined
  stream: (sink: ControlStreamSink) => Promise<void>
}

/** A route of the server's table; `:name` segments become `request.params.name`. */
export type ControlRoute = {
  method: ControlMethod
  path: string
  handle: (
    request: ControlRequest,
  ) => ControlReply | ControlStreamReply | Promise<ControlReply | ControlStreamReply>
}
