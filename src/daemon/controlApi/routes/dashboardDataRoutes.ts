import type { ControlRoute } from '../types.js'
import type { DashboardData } from './dashboardData.js'
import { getDiscrepancies } from './getDiscrepancies.js'
import { getLatencySeries } from './getLatencySeries.js'
import { getPnlSeries } from './getPnlSeries.js'
import { getReport } from './getReport.js'

/**
 * The `/v1` routes the dashboard's pages read beyond the operator's routes: any report as JSON,
 * the PnL and latency series its charts draw, and reconciliation's discrepancies.
 *
 * @example
 * const routes = [...controlPlaneRoutes(…), ...dashboardDataRoutes(data)]
 */
export function dashboardDataRoutes(data: DashboardData): ControlRoute[] {
  return [
    { method: 'GET', path: '/v1/reports/:name', handle: getReport(data) },
    { method: 'GET', path: '/v1/series/pnl', handle: getPnlSeries(data) },
    { method: 'GET', path: '/v1/series/latency', handle: getLatencySeries(data) },
    { method: 'GET', path: '/v1/discrepancies', handle: getDiscrepancies(data) },
  ]
}
