import type Database from 'better-sqlite3'
import { formatAmount } from '../formatAmount.js'
import type {
  Report,
  ReportColumn,
  ReportContext,
  ReportFilter,
  ReportKind,
  ReportRenderContext,
  ReportValue,
} from '../types.js'
import { executionFilterSql } from './executionFilterSql.js'
import { mergeRealizedBreakdowns, type RealizedBreakdown, realizedBreakdown } from './realizedBreakdown.js'
import {
  mergeReportPositions,
  type ReportPosition,
  reportPositionsOf,
  severalLedgersNotes,
} from './reportPositions.js'
import { type IncomeReportRow, selectIncome } from './selectIncome.js'
import { emptySums, sumsCells } from './sumsCells.js'
import { valuePositionAt } from './valuePosition.js'

type ExecutionFilterSql = ReturnType<typeof executionFilterSql>

/** The open positions of one chain and asset: how many, their unrealized PnL, and how many have no price. */
type OpenPositions = { count: number; unrealized: bigint; unpriced: number }

/** The kill switch row (global). */
type KillSwitchRow = { halted: number; reason: string | null; changed_at_ms: number | null }

/** A span of activity (Unix ms), undefined ends when there is none. */
type ActivitySpan = { first: number | undefined; last: number | undefined }

/** The columns of the `chains` table. */
const chainColumns: readonly ReportColumn[] = [
  { key: 'chain_id', title: 'Chain', kind: 'integer' },
  { key: 'asset_token', title: 'Asset', kind: 'text' },
  { key: 'fills', title: 'Fills', kind: 'integer' },
  { key: 'buys', title: 'Buys', kind: 'integer', wide: true },
  { key: 'sells', title: 'Sells', kind: 'integer', wide: true },
  { key: 'bought', title: 'Bought (asset)', kind: 'decimal', wide: true },
  { key: 'sold', title: 'Sold (asset)', kind: 'decimal', wide: true },
  { key: 'realized_pnl', title: 'Realized PnL', kind: 'decimal' },
  { key: 'unrealized_pnl', title: 'Unrealized PnL (now)', kind: 'decimal' },
  { key: 'fees', title: 'Fees', kind: 'decimal' },
  { key: 'income', title: 'Income', kind: 'decimal' },
  { key: 'corporate_actions', title: 'Corporate actions', kind: 'integer', wide: true },
  { key: 'open_positions', title: 'Open positions', kind: 'integer' },
]

/** The columns of the `run` table. */
const runColumns: readonly ReportColumn[] = [
  { key: 'executions', title: 'Executions', kind: 'integer' },
  { key: 'fills', title: 'Fills', kind: 'integer' },
  { key: 'open_positions', title: 'Open positions', kind: 'integer' },
  { key: 'first_activity', title: 'First activity', kind: 'time' },
  { key: 'last_activity', title: 'Last activity', kind: 'time' },
  { key: 'kill_switch', title: 'Kill switch', kind: 'text' },
  { key: 'kill_switch_reason', title: 'Kill switch reason', kind: 'text' },
  { key: 'kill_switch_changed_at', title: 'Kill switch changed', kind: 'time', wide: true },
]

/** The method notes. */
const summaryNotes: readonly string[] = [
  'Realized PnL by average cost (src/store/positionAccounting.ts), equal to the positions table when unfiltered; fees are inside cost basis and proceeds, shown apart; income (dividends) is beside realized PnL.',
  "Unrealized PnL and open positions are as of now, at the market price when given, else at the last fill's price (see the positions report).",
  'Filters: chain, ticker, strategy, since/until: executions by creation time, fills by block time, corporate actions and income by recording time. The kill switch is global. Activity spans executions, fills, corporate actions and income in scope.',
]

/**
 * The `summary` report, the headline of a run: executions by state, and per chain and asset:
 * fills, notional bought and sold, realized PnL (average cost) and fees in the filter's scope,
 * income, open positions and their unrealized PnL now; then first and last activity and the kill
 * switch. Filters: chain, ticker, strategy, time as in the pnl report (executions by creation
 * time); open positions and unrealized PnL are as of now (strategy and time do not narrow them);
 * the kill switch is global.
 *
 * @example
 * const report = summaryReport({ ledger, now: Date.now }, {})
 * report.tables[0].rows // [{ state: 'confirmed', count: 12 }, …]
 */
export function summaryReport(context: ReportContext, filter: ReportFilter): Report {
  return renderSummary(collectSummary(context, filter), context, filter)
}

/** What the summary report shows, as read from one ledger or merged from several. */
export type SummaryData = {
  /** Executions per state, by state. */
  states: { state: string; count: number }[]
  executionSpan: ActivitySpan
  breakdown: RealizedBreakdown
  income: IncomeReportRow[]
  /** The positions in scope (those of `breakdown.positions`), to value the open ones. */
  positions: ReportPosition[]
  /** The kill switch of each ledger (one for one ledger), with its ledger's name when several. */
  killSwitches: { ledger?: string | undefined; row: KillSwitchRow | undefined }[]
}

/**
 * Reads the summary report's data from the ledger of `context`; with `ledger` (one of several),
 * its positions and kill switch name it.
 *
 * @example
 * collectSummary({ ledger, now: Date.now }, {}).states // [{ state: 'confirmed', count: 12 }]
 */
export function collectSummary(context: ReportContext, filter: ReportFilter, ledger?: string): SummaryData {
  const database = context.ledger.database
  const executionFilter = executionFilterSql(filter, 'e')
  const breakdown = realizedBreakdown(database, filter)
  return {
    states: executionsByState(database, executionFilter),
    executionSpan: spanOfExecutions(database, executionFilter),
    breakdown,
    income: selectIncome(database, filter),
    positions: reportPositionsOf(database, [...breakdown.positions.values()], ledger),
    killSwitches: [{ ...(ledger === undefined ? {} : { ledger }), row: killSwitch(database) }],
  }
}

/**
 * The summary data of several ledgers as one: executions per state added, spans widened, every
 * group's sums added, their income together, the positions of a token merged
 * ({@link mergeReportPositions}), every ledger's kill switch kept.
 *
 * @example
 * mergeSummary([a, b]).states
 */
export function mergeSummary(parts: readonly SummaryData[]): SummaryData {
  const states = new Map<string, number>()
  for (const part of parts)
    for (const { state, count } of part.states) states.set(state, (states.get(state) ?? 0) + count)
  return {
    states: [...states]
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
      .map(([state, count]) => ({ state, count })),
    executionSpan: parts.reduce<ActivitySpan>(
      (span, part) => ({
        first: min(span.first, part.executionSpan.first),
        last: max(span.last, part.executionSpan.last),
      }),
      { first: undefined, last: undefined },
    ),
    breakdown: mergeRealizedBreakdowns(parts.map((part) => part.breakdown)),
    income: parts.flatMap((part) => part.income),
    positions: mergeReportPositions(parts.map((part) => part.positions)),
    killSwitches: parts.flatMap((part) => part.killSwitches),
  }
}

/**
 * The summary report of its data; with `ledgers` (several read), the kill switch says which
 * ledgers are halted, and notes say how the ledgers merged.
 *
 * @example
 * renderSummary(mergeSummary(parts), context, filter, ['a.sqlite', 'b.sqlite'])
 */
export function renderSummary(
  data: SummaryData,
  context: ReportRenderContext,
  filter: ReportFilter,
  ledgers?: readonly string[],
): Report {
  const { states, breakdown } = data
  const income = incomeByAsset(data.income, breakdown)
  const open = openPositionsByAsset(data.positions, context, breakdown)
  const activity = spanOf(data.executionSpan, breakdown, income.span)
  const chains = chainRows(breakdown, income.byAsset, open)
  return {
    name: 'summary',
    generatedAt: new Date(context.now()).toISOString(),
    filter,
    tables: [
      {
        key: 'executions_by_state',
        title: 'Executions by state',
        columns: [
          { key: 'state', title: 'State', kind: 'text' },
          { key: 'count', title: 'Executions', kind: 'integer' },
        ],
        rows: states,
      },
      { key: 'chains', title: 'Per chain and asset', columns: chainColumns, rows: chains },
      {
        key: 'run',
        title: 'Run',
        columns: runColumns,
        rows: [runRow(states, chains, open, activity, data.killSwitches)],
      },
    ],
    notes:
      ledgers === undefined
        ? summaryNotes
        : [
            ...summaryNotes,
            "Several ledgers: counts and sums add up every ledger's (each realized against its own ledger's average cost); activity spans them all; the kill switch is each ledger's own: halted in every ledger, running in none, else the ledgers halted, each reason after its ledger's name.",
            ...severalLedgersNotes(data.positions),
          ],
  }
}

/** The summary report in three steps (src/report/acrossLedgers.ts). */
export const summaryKind: ReportKind<SummaryData> = {
  collect: collectSummary,
  merge: mergeSummary,
  render: renderSummary,
}

/** How many executions the filter selects in each state, by state. */
function executionsByState(
  database: Database.Database,
  { where, params }: ExecutionFilterSql,
): { state: string; count: number }[] {
  return database
    .prepare<Record<string, string | number | null>, { state: string; count: number }>(
      `SELECT e.state, count(*) AS count FROM executions e WHERE ${where} GROUP BY e.state ORDER BY e.state`,
    )
    .all(params)
}

/** The first creation and last update of the executions the filter selects. */
function spanOfExecutions(database: Database.Database, { where, params }: ExecutionFilterSql): ActivitySpan {
  const times = database
    .prepare<Record<string, string | number | null>, { first: number | null; last: number | null }>(
      // Two subqueries, so that unfiltered each is one seek in its index.
      `SELECT (SELECT min(e.created_at_ms) FROM executions e WHERE ${where}) AS first,
         (SELECT max(e.updated_at_ms) FROM executions e WHERE ${where}) AS last`,
    )
    .get(params)
  return { first: times?.first ?? undefined, last: times?.last ?? undefined }
}

/**
 * The income per chain and asset, and the span of its recording times; an asset with income and
 * no fills joins `breakdown.byAsset` (empty sums).
 */
function incomeByAsset(
  income: readonly IncomeReportRow[],
  breakdown: RealizedBreakdown,
): { byAsset: Map<string, bigint>; span: ActivitySpan } {
  const byAsset = new Map<string, bigint>()
  let first: number | undefined
  let last: number | undefined
  for (const row of income) {
    const asset = `${row.chain_id}:${row.asset_token}`
    byAsset.set(asset, (byAsset.get(asset) ?? 0n) + BigInt(row.amount))
    if (!breakdown.byAsset.has(asset))
      breakdown.byAsset.set(asset, emptySums(row.chain_id, row.asset_token, row.asset_decimals))
    first = min(first, row.recorded_at_ms)
    last = max(last, row.recorded_at_ms)
  }
  return { byAsset, span: { first, last } }
}

/**
 * The open positions per chain and asset, valued now; an asset with an open position and no
 * fills in scope joins `breakdown.byAsset` (empty sums).
 */
function openPositionsByAsset(
  positions: readonly ReportPosition[],
  context: ReportRenderContext,
  breakdown: RealizedBreakdown,
): Map<string, OpenPositions> {
  const open = new Map<string, OpenPositions>()
  for (const { state: position, lastFill } of positions) {
    if (position.balance === 0n) continue
    const asset = `${position.chainId}:${position.assetToken}`
    if (!breakdown.byAsset.has(asset))
      breakdown.byAsset.set(asset, emptySums(position.chainId, position.assetToken, position.assetDecimals))
    const sums = open.get(asset) ?? { count: 0, unrealized: 0n, unpriced: 0 }
    addPosition(
      sums,
      valuePositionAt(context, position, () => lastFill()?.price ?? null),
    )
    open.set(asset, sums)
  }
  return open
}

/** Counts an open position and its unrealized PnL (or its lack of a price) into `sums`. */
function addPosition(sums: OpenPositions, value: { unrealized: bigint | null }): void {
  sums.count += 1
  if (value.unrealized === null) sums.unpriced += 1
  else sums.unrealized += value.unrealized
}

/** The first and last activity: executions, then fills and corporate actions, then income. */
function spanOf(executions: ActivitySpan, breakdown: RealizedBreakdown, income: ActivitySpan): ActivitySpan {
  return {
    first: min(min(breakdown.first, executions.first), income.first),
    last: max(max(breakdown.last, executions.last), income.last),
  }
}

/** The kill switch's state, global. */
function killSwitch(database: Database.Database): KillSwitchRow | undefined {
  return database
    .prepare<[], KillSwitchRow>('SELECT halted, reason, changed_at_ms FROM kill_switch WHERE id = 1')
    .get()
}

/** The rows of the `chains` table, by chain and asset. */
function chainRows(
  breakdown: RealizedBreakdown,
  incomeByAsset: ReadonlyMap<string, bigint>,
  open: ReadonlyMap<string, OpenPositions>,
): Record<string, ReportValue>[] {
  return [...breakdown.byAsset]
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([asset, sums]) => {
      const positions = open.get(asset)
      return {
        ...sumsCells(sums),
        fills: sums.buys + sums.sells,
        income: formatAmount(incomeByAsset.get(asset) ?? 0n, sums.assetDecimals),
        open_positions: positions?.count ?? 0,
        unrealized_pnl: formatAmount(positions?.unrealized ?? 0n, sums.assetDecimals),
      }
    })
}

/** The one row of the `run` table: totals, activity span and kill switch. */
function runRow(
  states: readonly { count: number }[],
  chains: readonly Record<string, ReportValue>[],
  open: ReadonlyMap<string, OpenPositions>,
  activity: ActivitySpan,
  killSwitches: SummaryData['killSwitches'],
): Record<string, ReportValue> {
  return {
    executions: states.reduce((sum, row) => sum + row.count, 0),
    fills: chains.reduce((sum, row) => sum + (row.fills as number), 0),
    open_positions: [...open.values()].reduce((sum, row) => sum + row.count, 0),
    first_activity: isoTime(activity.first),
    last_activity: isoTime(activity.last),
    ...killSwitchCells(killSwitches),
  }
}

/**
 * The kill switch cells: of one ledger, its state, reason and last change; of several, `halted`
 * when every ledger is, `running` when none is, else `halted in <ledgers>`, each halted ledger's
 * reason after its name, and the latest change.
 */
function killSwitchCells(killSwitches: SummaryData['killSwitches']): Record<string, ReportValue> {
  const [only, ...more] = killSwitches
  if (more.length === 0)
    return {
      kill_switch: only?.row?.halted === 1 ? 'halted' : 'running',
      kill_switch_reason: only?.row?.reason ?? null,
      kill_switch_changed_at: isoTime(only?.row?.changed_at_ms),
    }
  const halted = killSwitches.filter((entry) => entry.row?.halted === 1)
  const reasons = halted.flatMap((entry) =>
    entry.row?.reason ? [`${entry.ledger ?? '?'}: ${entry.row.reason}`] : [],
  )
  return {
    kill_switch:
      halted.length === 0
        ? 'running'
        : halted.length === killSwitches.length
          ? 'halted'
          : `halted in ${halted.map((entry) => entry.ledger ?? '?').join(', ')}`,
    kill_switch_reason: reasons.length === 0 ? null : reasons.join('; '),
    kill_switch_changed_at: isoTime(
      killSwitches.reduce<number | undefined>(
        (latest, entry) => max(latest, entry.row?.changed_at_ms ?? undefined),
        undefined,
      ),
    ),
  }
}

/** A time in ISO 8601, null when there is none. */
function isoTime(ms: number | undefined | null): string | null {
  return ms === undefined || ms === null ? null : new Date(ms).toISOString()
}

function min(a: number | undefined, b: number | undefined) {
  return a === undefined ? b : b === undefined ? a : Math.min(a, b)
}
function max(a: number | undefined, b: number | undefined) {
  return a === undefined ? b : b === undefined ? a : Math.max(a, b)
}
