// A report over several ledgers (`stockroute report <name> --ledger A --ledger B …`: several
// daemons, each with its own ledger, "shards"): each report reads every ledger into its data
// (./queries/<name>.ts `collect`), merges them by its own rule (`merge`, beside it) and renders the
// merged data once, so that amounts are added in base units before they are formatted.

import { nameAssets } from './nameAssets.js'
import { executionsKind } from './queries/executions.js'
import { fillsKind } from './queries/fills.js'
import { incomeKind } from './queries/income.js'
import { latencyKind } from './queries/latency.js'
import { pnlKind } from './queries/pnl.js'
import { positionsKind } from './queries/positions.js'
import { strategiesKind } from './queries/strategies.js'
import { summaryKind } from './queries/summary.js'
import type {
  Report,
  ReportFilter,
  ReportKind,
  ReportLedger,
  ReportName,
  ReportRenderContext,
} from './types.js'

/** Each report's three steps (collect, merge, render), for reports over several ledgers. */
export const reportKinds: Readonly<Record<ReportName, ReportKind<unknown>>> = {
  summary: summaryKind as ReportKind<unknown>,
  positions: positionsKind as ReportKind<unknown>,
  pnl: pnlKind as ReportKind<unknown>,
  executions: executionsKind as ReportKind<unknown>,
  fills: fillsKind as ReportKind<unknown>,
  income: incomeKind as ReportKind<unknown>,
  latency: latencyKind as ReportKind<unknown>,
  strategies: strategiesKind as ReportKind<unknown>,
}

/**
 * Makes the report `name` over several ledgers as one: every count, sum, fee, volume and PnL is
 * the sum of the ledgers' own (added in base units), a token held in several is one position
 * (./queries/reportPositions.ts says how and when its figures may differ from one ledger's), the
 * row lists (executions, fills, income, corporate actions) hold every ledger's rows in the order
 * one ledger lists them, each naming its ledger (column `ledger`), and `report.ledgers` names them
 * all. Of one ledger, the report is that ledger's, as `runReport` makes it (no ledger column).
 * The ledgers' names must differ. Throws a `RangeError` for a name with no report, or no ledger.
 *
 * @example
 * const report = runReportAcrossLedgers('pnl', [
 *   { name: 'shard-a', database: a.database },
 *   { name: 'shard-b', database: b.database },
 * ], { now: Date.now }, {})
 */
export function runReportAcrossLedgers(
  name: string,
  ledgers: readonly ReportLedger[],
  context: ReportRenderContext,
  filter: ReportFilter,
): Report {
  const kind = (reportKinds as Partial<Record<string, ReportKind<unknown>>>)[name]
  if (kind === undefined)
    throw new RangeError(
      `There is no report "${name}": the reports are ${Object.keys(reportKinds).join(', ')}.`,
    )
  if (ledgers.length === 0) throw new RangeError('A report needs at least one ledger.')
  const names = ledgers.map((ledger) => ledger.name)
  if (new Set(names).size !== names.length)
    throw new RangeError(`The ledgers of a report need distinct names: ${names.join(', ')}.`)
  const databases = ledgers.map((ledger) => ledger.database)
  const [only] = ledgers
  if (only && ledgers.length === 1)
    return nameAssets(
      kind.render(kind.collect({ ...context, ledger: only }, filter), context, filter),
      databases,
    )
  const parts = ledgers.map((ledger) => kind.collect({ ...context, ledger }, filter, ledger.name))
  const report = kind.render(kind.merge(parts, filter), context, filter, names)
  return {
    ...nameAssets(report, databases),
    notes: [
      `Merged from ${ledgers.length} ledgers: ${ledgers.map(describeLedger).join(', ')}.`,
      ...report.notes,
    ],
    ledgers: names,
  }
}

/** A ledger as the first note of a report over several names it: its name, and its path when that differs. */
function describeLedger(ledger: ReportLedger): string {
  return ledger.path === undefined || ledger.path === ledger.name
    ? ledger.name
    : `${ledger.name} (${ledger.path})`
}
