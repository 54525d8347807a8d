import { createServer } from 'node:http'
import type { ControlPlane } from '../controlPlane.js'
import { createEventFeed } from '../routes/createEventFeed.js'
import type { DashboardData } from '../routes/dashboardData.js'
import { buildRouteTable } from '../routes/routeTable.js'
import type {
  ControlClientErrorReason,
  ControlServerLogger,
  ExtraRoute,
  SwapApiEngine,
  SwapRouting,
} from '../types.js'
import { createClientErrors } from './clientErrors.js'
import { createRequestHandler } from './handleRequest.js'
import { listen } from './listen.js'
import { createReadGate } from './readGate.js'
import { checkServerOptions } from './serverOptions.js'

export type StartControlServerParameters = {
  /** Records, previews and reads swaps. */
  engine: SwapApiEngine
  /** Default `127.0.0.1`. A host that is not loopback is refused unless `allowRemote` is set. */
  host?: string | undefined
  /** Default 0: a free port (read it from `url`). */
  port?: number | undefined
  /** Listen on a non-loopback host; needs `bearerToken`. Default false. */
  allowRemote?: boolean | undefined
  /** When set, every `/v1` route needs `Authorization: Bearer <token>` (401 otherwise). */
  bearerToken?: string | undefined
  /** Routes of the caller's own outside `/v1` (`GET /health`, `GET /metrics`), served without the token. */
  extraRoutes?: readonly ExtraRoute[] | undefined
  /** Cluster mode: where a posted swap runs, here or on the daemon owning its key (docs/scale-out.md). */
  swapRouting?: SwapRouting | undefined
  logger?: ControlServerLogger | undefined
  /**
   * Called once for each request the client broke: aborted halfway (`aborted`), refused by the HTTP
   * parser (`malformed`), or not whole within the request timeout (`timeout`). Such requests are
   * logged at debug only (the daemon counts them in `stockroute_control_client_errors_total`).
   */
  onClientError?: ((reason: ControlClientErrorReason) => void) | undefined
  /** Request bodies above this are refused with 413. Default 64 KiB. */
  maxBodyBytes?: number | undefined
  /** `GET /v1/events` streams open at once at most; the next gets 429. Default 64. */
  maxEventStreams?: number | undefined
  /** `GET /v1/events` streams open at once per token or dashboard session; the next gets 429. Default 16. */
  maxEventStreamsPerToken?: number | undefined
  /**
   * Heavy reads (executions, reports, series, discrepancies, positions, strategies) waiting or
   * running at once: they run one per turn of the event loop, and the next beyond this gets 429.
   * Default 1000.
   */
  maxQueuedReads?: number | undefined
  /**
   * The daemon as the API steers it: with it, the server also serves executions, kill switch,
   * strategies, positions, balances and the event stream (see docs/control-api.md).
   */
  controlPlane?: ControlPlane | undefined
  /**
   * With it, the server also serves the browser dashboard (`/dashboard/`, its login making a
   * session cookie that `/v1` routes accept beside the token) and the routes its pages read:
   * `GET /v1/reports/:name`, `/v1/series/pnl`, `/v1/series/latency`, `/v1/discrepancies`
   * (see docs/dashboard.md).
   */
  dashboard?: DashboardData | undefined
}

/** A running control server. */
export type ControlServer = {
  /** `http://127.0.0.1:PORT` (an IPv6 host in brackets). */
  url: string
  /** Stops accepting connections, waits for the requests in progress, closes idle keep-alive sockets. */
  close: () => Promise<void>
}

/** The slowest a client may be to send a whole request, ms. */
const requestTimeoutMs = 30_000

/** How often the shared poller of `GET /v1/events` reads the ledger's newest id while a stream is open, ms. */
const eventPollMs = 150

/**
 * Starts the daemon's control HTTP server: the swap API for aggregators (`POST /v1/swaps`,
 * `GET /v1/swaps/:id`, `GET /v1/quotes`), given a `controlPlane` the operator's routes (executions,
 * kill switch, strategies, positions, balances, the `GET /v1/events` stream), the OpenAPI document
 * `GET /v1/openapi.json`, and the caller's extra routes, on loopback by default.
 * Every input is validated; every error is JSON `{code, message, details?}` with a stable code and
 * a message saying how to fix it; an unexpected failure is a 500 that leaks nothing and is logged.
 * A request the client broke (aborted halfway, refused by the HTTP parser, too slow) is the
 * client's error: answered 4xx when it can be, counted (`onClientError`), logged at debug only.
 * Without the token a request learns nothing it does not need: an unknown path gets a short 404
 * (with the token, the list of routes). Throws {@link ControlServerError} when it cannot start: a
 * non-loopback host without `allowRemote` (`NON_LOOPBACK_HOST`), a bad option (`INVALID_OPTIONS`),
 * a port in use (`LISTEN_FAILED`).
 *
 * @example
 * const server = await startControlServer({
 *   engine,
 *   port: 8787,
 *   bearerToken: process.env.STOCKROUTE_CONTROL_TOKEN,
 *   controlPlane: createControlPlane({ engine, ledger, strategies }),
 *   extraRoutes: [{ method: 'GET', path: '/health', handle: () => ({ status: 200, body: { ok: true } }) }],
 *   logger: log.child({ component: 'control' }),
 * })
 * // POST `${server.url}/v1/swaps` with an Idempotency-Key header …
 * await server.close()
 */
export async function startControlServer(parameters: StartControlServerParameters): Promise<ControlServer> {
  const { engine, logger } = parameters
  const { host, port, bearerToken, maxBodyBytes, maxEventStreams, maxEventStreamsPerToken, maxQueuedReads } =
    checkServerOptions(parameters)
  const plane = parameters.controlPlane
  const feed = plane
    ? createEventFeed(plane.ledger.events, {
        pollMs: eventPollMs,
        logger,
        limits: { maxStreams: maxEventStreams, maxStreamsPerCredential: maxEventStreamsPerToken },
      })
    : undefined
  const readGate = createReadGate({ maxQueued: maxQueuedReads })
  const { dashboard } = parameters
  const { match, routeList, sessions } = buildRouteTable({
    engine,
    logger,
    plane,
    feed,
    readGate,
    dashboard,
    bearerToken,
    extraRoutes: parameters.extraRoutes ?? [],
    swapRouting: parameters.swapRouting,
  })
  let closing = false
  let closed: Promise<void> | undefined
  /** Ends every open stream when the server closes: close() would otherwise wait for them forever. */
  const streamsEnd = new AbortController()
  const clientErrors = createClientErrors({ logger, onClientError: parameters.onClientError })
  const server = createServer(
    { requestTimeout: requestTimeoutMs },
    createRequestHandler({
      match,
      routeList,
      bearerToken,
      sessions,
      maxBodyBytes,
      logger,
      clientErrors,
      streamsEnd: streamsEnd.signal,
      closing: () => closing,
      closeIdleConnections: () => server.closeIdleConnections(),
    }),
  )
  server.on('clientError', clientErrors.onSocketError)
  const url = await listen(server, { host, port })
  server.on('error', (error) => logger?.error({ err: error }, 'control API: server error'))
  logger?.info({ url, auth: bearerToken !== undefined ? 'bearer' : 'none' }, 'control API listening')

  return {
    url,
    close: () => {
      closed ??= new Promise<void>((resolve, reject) => {
        closing = true
        server.close((error) => (error ? reject(error) : resolve()))
        streamsEnd.abort(new Error('the control API is closing'))
        feed?.close()
        server.closeIdleConnections()
      })
      return closed
    },
  }
}
