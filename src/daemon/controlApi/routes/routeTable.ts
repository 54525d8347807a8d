import type { ControlPlane } from '../controlPlane.js'
import { createDashboardSessions, type DashboardSessions } from '../http/dashboardSessions.js'
import { createRouteMatcher, type RouteMatch } from '../http/matchRoute.js'
import type { ReadGate } from '../http/readGate.js'
import { buildOpenApiDocument } from '../openApi/buildOpenApiDocument.js'
import type { ControlRoute, ControlServerLogger, ExtraRoute, SwapApiEngine, SwapRouting } from '../types.js'
import { controlPlaneRoutes } from './controlPlaneRoutes.js'
import type { EventFeed } from './createEventFeed.js'
import type { DashboardData } from './dashboardData.js'
import { dashboardDataRoutes } from './dashboardDataRoutes.js'
import { dashboardPageRoutes } from './dashboardPageRoutes.js'
import type { EventStreamSettings } from './getEvents.js'
import { getOpenApi } from './getOpenApi.js'
import { swapApiRoutes } from './swapApiRoutes.js'

const eventStreamSettings: EventStreamSettings = { heartbeatMs: 15_000, retryMs: 2_000, pageSize: 100 }

/**
 * The routes that read many ledger rows and serialize them in one go: they take turns through the
 * server's read gate (one per turn of the event loop, 429 beyond its queue), so that a burst of
 * them cannot hold the daemon's thread (../http/readGate.ts).
 */
const heavyReads: ReadonlySet<string> = new Set([
  'GET /v1/executions',
  'GET /v1/positions',
  'GET /v1/strategies',
  'GET /v1/reports/:name',
  'GET /v1/series/pnl',
  'GET /v1/series/latency',
  'GET /v1/discrepancies',
])

/** The routes a server serves, and how a request finds its own. */
export type RouteTable = {
  match: (method: string, path: string) => RouteMatch
  /** The `/v1` routes as `METHOD /path, …`, for a 404's message. */
  routeList: string
  /** The dashboard's login sessions, when it is served. */
  sessions: DashboardSessions | undefined
}

/**
 * The server's route table: the swap API, the control plane's routes (given a plane and its event
 * feed), the dashboard's data and pages (given its data), `GET /v1/openapi.json` and the caller's
 * extra routes. The OpenAPI document is built now: a `/v1` route without a description stops the
 * start, not a request.
 *
 * @example
 * const { match, routeList, sessions } = buildRouteTable({ engine, logger, plane, feed, dashboard, bearerToken, extraRoutes })
 */
export function buildRouteTable(parameters: {
  engine: SwapApiEngine
  logger: ControlServerLogger | undefined
  plane: ControlPlane | undefined
  feed: EventFeed | undefined
  /** Where the heavy reads take turns; none: they run as they come. */
  readGate?: ReadGate | undefined
  dashboard: DashboardData | undefined
  bearerToken: string | undefined
  extraRoutes: readonly ExtraRoute[]
  /** Cluster mode: where posted swaps run. */
  swapRouting?: SwapRouting | undefined
}): RouteTable {
  const { engine, logger, plane, feed, readGate, dashboard, bearerToken } = parameters
  const routes: ControlRoute[] = [
    ...swapApiRoutes(engine, logger, parameters.swapRouting),
    ...(plane && feed ? controlPlaneRoutes({ plane, feed, events: eventStreamSettings, logger }) : []),
    ...(dashboard ? dashboardDataRoutes(dashboard) : []),
    { method: 'GET', path: '/v1/openapi.json', handle: getOpenApi(() => openApiDocument) },
  ]
  const apiRoutes = routes.map((route): ControlRoute => {
    if (!readGate || !heavyReads.has(`${route.method} ${route.path}`)) return route
    const { handle } = route
    return { ...route, handle: (request) => readGate.run(() => handle(request), request.signal) }
  })
  const sessions = dashboard ? createDashboardSessions() : undefined
  const pageRoutes = sessions ? dashboardPageRoutes({ sessions, bearerToken }) : []
  const openApiDocument = buildOpenApiDocument(apiRoutes, { bearer: bearerToken !== undefined })
  return {
    match: createRouteMatcher([...apiRoutes, ...pageRoutes, ...parameters.extraRoutes]),
    routeList: apiRoutes.map((route) => `${route.method} ${route.path}`).join(', '),
    sessions,
  }
}
