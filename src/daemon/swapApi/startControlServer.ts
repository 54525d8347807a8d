import { randomUUID } from 'node:crypto'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { authenticateRequest } from './authenticateRequest.js'
import { buildOpenApiDocument } from './buildOpenApiDocument.js'
import type { ControlPlane } from './controlPlane.js'
import { controlPlaneRoutes } from './controlPlaneRoutes.js'
import { createEventFeed } from './createEventFeed.js'
import type { DashboardData } from './dashboardData.js'
import { dashboardDataRoutes } from './dashboardDataRoutes.js'
import { dashboardPageRoutes } from './dashboardPageRoutes.js'
import { createDashboardSessions } from './dashboardSessions.js'
import { ControlApiError, ControlServerError } from './errors.js'
import type { EventStreamSettings } from './getEvents.js'
import { getOpenApi } from './getOpenApi.js'
import { isLoopbackHost } from './isLoopbackHost.js'
import { createRouteMatcher } from './matchRoute.js'
import { readJsonBody } from './readJsonBody.js'
import { swapApiRoutes } from './routes.js'
import { controlServerOptionsSchema } from './schemas.js'
import { sendReply } from './sendReply.js'
import { sendStream } from './sendStream.js'
import type {
  ControlReply,
  ControlRoute,
  ControlServerLogger,
  ControlStreamReply,
  ExtraRoute,
  SwapApiEngine,
} from './types.js'
import { zodProblems } from './zodProblems.js'

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
  logger?: ControlServerLogger | undefined
  /** Request bodies above this are refused with 413. Default 64 KiB. */
  maxBodyBytes?: number | undefined
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

const eventStreamSettings: EventStreamSettings = { heartbeatMs: 15_000, retryMs: 2_000, pageSize: 100 }

/**
 * Starts the daemon's control HTTP server: the swap API for aggregators (`POST /v1/swaps`,
 * `GET /v1/swaps/:id`, `GET /v1/quotes`), given a `controlPlane` the operator's routes (executions,
 * kill switch, strategies, positions, balances, the `GET /v1/events` stream), the OpenAPI document
 * `GET /v1/openapi.json`, and the caller's extra routes, on loopback by default.
 * Every input is validated; every error is JSON `{code, message, details?}` with a stable code and
 * a message saying how to fix it; an unexpected failure is a 500 that leaks nothing and is logged.
 * Throws {@link ControlServerError} when it cannot start: a non-loopback host without `allowRemote`
 * (`NON_LOOPBACK_HOST`), a bad option (`INVALID_OPTIONS`), a port in use (`LISTEN_FAILED`).
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
  const options = checkOptions(parameters)
  const { host, port, bearerToken, maxBodyBytes } = options
  const plane = parameters.controlPlane
  const feed = plane ? createEventFeed(plane.ledger.events, { pollMs: eventPollMs, logger }) : undefined
  const apiRoutes: ControlRoute[] = [
    ...swapApiRoutes(engine, logger),
    ...(plane && feed ? controlPlaneRoutes({ plane, feed, events: eventStreamSettings, logger }) : []),
    ...(parameters.dashboard ? dashboardDataRoutes(parameters.dashboard) : []),
    { method: 'GET', path: '/v1/openapi.json', handle: getOpenApi(() => openApiDocument) },
  ]
  const sessions = parameters.dashboard ? createDashboardSessions() : undefined
  const pageRoutes = sessions ? dashboardPageRoutes({ sessions, bearerToken }) : []
  // Built now: a /v1 route without a description stops the start, not a request.
  const openApiDocument = buildOpenApiDocument(apiRoutes, { bearer: bearerToken !== undefined })
  const match = createRouteMatcher([...apiRoutes, ...pageRoutes, ...(parameters.extraRoutes ?? [])])
  const routeList = apiRoutes.map((route) => `${route.method} ${route.path}`).join(', ')
  let closing = false
  let closed: Promise<void> | undefined
  /** Ends every open stream when the server closes: close() would otherwise wait for them forever. */
  const streamsEnd = new AbortController()

  const server = createServer({ requestTimeout: requestTimeoutMs }, (incoming, outgoing) => {
    handle(incoming, outgoing).catch((error: unknown) => {
      logger?.error({ err: error }, 'control API: failed to answer a request')
      if (!outgoing.headersSent) outgoing.writeHead(500)
      outgoing.end()
    })
  })

  async function handle(incoming: IncomingMessage, outgoing: ServerResponse) {
    const startedAt = performance.now()
    const requestId = randomUUID()
    const method = incoming.method ?? 'GET'
    const target = incoming.url ?? '/'
    const queryAt = target.indexOf('?')
    const path = queryAt === -1 ? target : target.slice(0, queryAt)
    const controller = new AbortController()
    outgoing.once('close', () => {
      if (!outgoing.writableFinished) controller.abort(new Error('the client closed the connection'))
    })
    const isApi = path === '/v1' || path.startsWith('/v1/')

    let reply: ControlReply | ControlStreamReply
    try {
      if (!path.startsWith('/'))
        throw new ControlApiError({
          status: 400,
          code: 'BAD_REQUEST',
          message: 'The request target must be a path starting with "/".',
        })
      if (isApi && bearerToken !== undefined)
        authenticateRequest({ method, headers: incoming.headers, bearerToken, sessions })
      const found = match(method, path)
      if (found.kind === 'notFound')
        throw new ControlApiError({
          status: 404,
          code: 'NOT_FOUND',
          message: `There is no route ${method} ${path}: the control API serves ${routeList} (described in GET /v1/openapi.json).`,
        })
      if (found.kind === 'methodNotAllowed')
        throw new ControlApiError({
          status: 405,
          code: 'METHOD_NOT_ALLOWED',
          message: `${path} does not accept ${method}: use ${found.allow.join(' or ')}.`,
          headers: { allow: found.allow.join(', ') },
        })
      reply = await found.route.handle({
        method,
        path,
        query: new URLSearchParams(queryAt === -1 ? '' : target.slice(queryAt + 1)),
        headers: incoming.headers,
        params: found.params,
        readJson: () => readJsonBody(incoming, maxBodyBytes),
        signal: controller.signal,
        requestId,
      })
    } catch (error) {
      reply = errorReply(error, requestId, logger)
    }

    const serverHeaders: Record<string, string> = { 'x-request-id': requestId }
    if (isApi) serverHeaders['cache-control'] = 'no-store'
    if (closing) serverHeaders.connection = 'close'
    outgoing.once('finish', () => {
      // A keep-alive socket that became idle after close() began would hold the server open.
      if (closing) setImmediate(() => server.closeIdleConnections())
    })
    if ('stream' in reply)
      await sendStream(
        outgoing,
        reply,
        serverHeaders,
        AbortSignal.any([controller.signal, streamsEnd.signal]),
      )
    else sendReply(outgoing, reply, serverHeaders)
    if (isApi || reply.status >= 500)
      logger?.[reply.status >= 500 ? 'warn' : 'info'](
        {
          requestId,
          method,
          path,
          status: reply.status,
          durationMs: Math.round(performance.now() - startedAt),
        },
        'control API request',
      )
  }

  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) =>
      reject(
        new ControlServerError({
          code: 'LISTEN_FAILED',
          shortMessage: `The control API could not listen on ${host}:${port} (${error.code ?? error.message}): ${
            error.code === 'EADDRINUSE'
              ? 'another process uses this port; choose another port, or 0 for a free one'
              : 'check the host and port'
          }.`,
          details: { host, port },
          cause: error,
        }),
      )
    server.once('error', onError)
    server.listen(port, host, () => {
      server.off('error', onError)
      resolve()
    })
  })
  server.on('error', (error) => logger?.error({ err: error }, 'control API: server error'))
  const address = server.address() as AddressInfo
  const urlHost = address.family === 'IPv6' ? `[${address.address}]` : address.address
  const url = `http://${urlHost}:${address.port}`
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

/** The data options, defaulted and checked; a problem is an {@link ControlServerError}. */
function checkOptions(parameters: StartControlServerParameters) {
  const engine = parameters.engine as Partial<SwapApiEngine> | undefined
  const missing = (['submit', 'preview', 'outcome'] as const).filter(
    (name) => typeof engine?.[name] !== 'function',
  )
  if (missing.length > 0)
    throw new ControlServerError({
      code: 'INVALID_OPTIONS',
      shortMessage: `startControlServer: engine must have ${missing.join(', ')}: pass the engine from createEngine.`,
    })
  const plane = parameters.controlPlane as Partial<ControlPlane> | undefined
  if (plane !== undefined) {
    const lacking = [
      ...(['cancelExecution', 'halt', 'resume', 'balances'] as const).filter(
        (name) => typeof plane[name] !== 'function',
      ),
      ...(typeof plane.strategies?.list === 'function' && typeof plane.strategies.setEnabled === 'function'
        ? []
        : ['strategies']),
      ...(typeof plane.ledger?.events?.listAfter === 'function' ? [] : ['ledger']),
    ]
    if (lacking.length > 0)
      throw new ControlServerError({
        code: 'INVALID_OPTIONS',
        shortMessage: `startControlServer: controlPlane must have ${lacking.join(', ')}: pass the plane from createControlPlane.`,
      })
  }
  const parsed = controlServerOptionsSchema.safeParse({
    host: parameters.host ?? '127.0.0.1',
    port: parameters.port ?? 0,
    allowRemote: parameters.allowRemote ?? false,
    bearerToken: parameters.bearerToken,
    maxBodyBytes: parameters.maxBodyBytes ?? 64 * 1024,
    extraRoutes: parameters.extraRoutes ?? [],
  })
  if (!parsed.success) {
    const problems = zodProblems(parsed.error, 'options')
    throw new ControlServerError({
      code: 'INVALID_OPTIONS',
      shortMessage: `startControlServer: ${problems.map(({ field, problem }) => `${field} ${problem}`).join('; ')}.`,
      details: { problems },
    })
  }
  const options = parsed.data
  const seen = new Set<string>()
  for (const route of options.extraRoutes) {
    const key = `${route.method} ${route.path}`
    if (seen.has(key))
      throw new ControlServerError({
        code: 'INVALID_OPTIONS',
        shortMessage: `startControlServer: extraRoutes lists ${key} twice: keep one.`,
      })
    seen.add(key)
  }
  if (!isLoopbackHost(options.host) && !options.allowRemote)
    throw new ControlServerError({
      code: 'NON_LOOPBACK_HOST',
      shortMessage: `The control API would listen on ${options.host}, which is not a loopback address: whoever reaches it could spend the wallet's funds. Listen on 127.0.0.1 (the default) or ::1, or set allowRemote: true together with a bearerToken.`,
      details: { host: options.host },
    })
  if (options.allowRemote && !isLoopbackHost(options.host) && options.bearerToken === undefined)
    throw new ControlServerError({
      code: 'NON_LOOPBACK_HOST',
      shortMessage: `allowRemote lets the control API listen on ${options.host}, but no bearerToken is set: anyone on the network could spend the wallet's funds. Set a bearerToken (a long random string).`,
      details: { host: options.host },
    })
  return options
}

function errorReply(
  error: unknown,
  requestId: string,
  logger: ControlServerLogger | undefined,
): ControlReply {
  if (error instanceof ControlApiError)
    return { status: error.status, headers: error.headers, body: error.body() }
  logger?.error({ requestId, err: error }, 'control API: unexpected error')
  return {
    status: 500,
    body: {
      code: 'INTERNAL',
      message: `The control API failed on this request (request id ${requestId}): the daemon's log has the cause; retry, and report it if it happens again.`,
    },
  }
}
