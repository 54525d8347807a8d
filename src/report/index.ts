// The reports `stockroute report <name>` makes, and the one door to them: each report name maps to
// its query; the renderers (./render) take any report.

import { nameAssets } from './nameAssets.js'
import { executionsReport } from './queries/executions.js'
import { fillsReport } from './queries/fills.js'
import { incomeReport } from './queries/income.js'
import { latencyReport } from './queries/latency.js'
import { pnlReport } from './queries/pnl.js'
import { positionsReport } from './queries/positions.js'
import { strategiesReport } from './queries/strategies.js'
import { summaryReport } from './queries/summary.js'
import { type Report, type ReportContext, type ReportFilter, type ReportName, reportNames } from './types.js'

export { reportKinds, runReportAcrossLedgers } from './acrossLedgers.js'
export { nameAssets } from './nameAssets.js'
export {
  collectTwapProgress,
  mergeTwapProgress,
  type TwapFigures,
  type TwapProgressSums,
  twapFigures,
} from './queries/twapProgress.js'
export { renderReportCsv, renderTableCsv } from './render/csv.js'
export { csvTargetsOf } from './render/csvTargets.js'
export { renderReportHtml, renderReportPage } from './render/html.js'
export { renderReportJson } from './render/json.js'
export { defaultTextWidth, renderReportText, type TextOptions } from './render/text.js'
export * from './types.js'

/** A report query: reads the ledger (never writes it) and returns the report. */
export type ReportQuery = (context: ReportContext, filter: ReportFilter) => Report

/** The queries of the reports this build has; a name without one is not available yet. */
export const reportQueries: Readonly<Partial<Record<ReportName, ReportQuery>>> = {
  summary: summaryReport,
  positions: positionsReport,
  pnl: pnlReport,
  executions: executionsReport,
  fills: fillsReport,
  income: incomeReport,
  latency: latencyReport,
  strategies: strategiesReport,
}

/**
 * The names of the reports this build can make, in the order of {@link reportNames}.
 *
 * @example
 * availableReports() // ['executions', 'fills', 'latency', …]
 */
export function availableReports(): ReportName[] {
  return reportNames.filter((name) => reportQueries[name] !== undefined)
}

/**
 * Makes the report `name` over `context` for `filter`. Throws a `RangeError` naming the reports
 * there are when `name` has no query.
 *
 * @example
 * const report = runReport('latency', { ledger, now: Date.now }, { chainId: 31337 })
 */
export function runReport(name: string, context: ReportContext, filter: ReportFilter): Report {
  const query = (reportQueries as Partial<Record<string, ReportQuery>>)[name]
  if (query === undefined)
    throw new RangeError(`There is no report "${name}": the reports are ${availableReports().join(', ')}.`)
  return nameAssets(query(context, filter), context.ledger.database)
}
