import { runReport } from '../../../report/index.js'
import { defaultListLimit } from '../../../report/types.js'
import { reportNameSchema, reportQuerySchema } from '../contract.js'
import { readPathParam } from '../http/readPathParam.js'
import { readQuery } from '../http/readQuery.js'
import type { ControlReply, ControlRequest } from '../types.js'
import type { DashboardData } from './dashboardData.js'

/**
 * `GET /v1/reports/:name?chainId&ticker&strategy&since&until&limit`: the report `stockroute report
 * <name> --json` prints, with the same filters, read from the daemon's own ledger; its list tables
 * hold at most `maxReportRows` rows (contract.ts).
 *
 * @example
 * const route = { method: 'GET', path: '/v1/reports/:name', handle: getReport(data) } as const
 * // curl 'http://127.0.0.1:8787/v1/reports/latency?chainId=31337' → {"name":"latency","tables":[…],…}
 */
export function getReport(data: DashboardData) {
  return (request: ControlRequest): ControlReply => {
    const name = readPathParam(request, 'name', reportNameSchema, 'report name')
    const query = readQuery(request, reportQuerySchema, 'Invalid report query')
    const report = runReport(
      name,
      { ledger: data.ledger, now: data.now, fxRates: data.fxRates, marketPrices: data.marketPrices?.() },
      {
        chainId: query.chainId,
        ticker: query.ticker,
        strategy: query.strategy,
        sinceMs: query.since,
        untilMs: query.until,
        // Bounded: `all` is refused by the query's schema (contract.ts, maxReportRows).
        limit: query.limit ?? defaultListLimit,
      },
    )
    return { status: 200, body: report }
  }
}
