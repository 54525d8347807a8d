import type { ExecutionState } from '../../store/index.js'
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
import { interleave, withLedgerColumn } from './ledgerLists.js'

type ExecutionReportRow = {
  id: number
  created_at_ms: number
  chain_id: number
  ticker: string
  side: 'buy' | 'sell'
  amount_in: string
  amount_type: 'stablecoin' | 'stocktoken'
  strategy: string | null
  state: ExecutionState
  reason: string
  reason_class: string
}

/** What the executions report shows, as read from one ledger or merged from several. */
export type ExecutionsData = {
  /** Executions selected per state and reason class (each pair once). */
  counts: { state: string; reason_class: string; count: number }[]
  /** The newest `filter.limit` executions selected (all without a limit), newest first. */
  rows: (ExecutionReportRow & { ledger?: string | undefined })[]
}

/**
 * The `executions` report: executions by outcome and why. Three tables: counts per state
 * (`by_state`), counts per state and reason class (`by_reason`, see {@link reasonClassOf}), and
 * every execution (`executions`, newest first) with its id, creation time, chain, ticker, side,
 * requested amount (natural units, as the intent asked), strategy, state, reason class and reason.
 * The filter selects executions by chain, ticker, strategy and creation time.
 *
 * @example
 * const report = executionsReport({ ledger, now: Date.now }, { chainId: 31337, sinceMs: Date.now() - 86_400_000 })
 * report.tables[0].rows // [{ state: 'confirmed', executions: 12, share_pct: '92.31' }, …]
 */
export function executionsReport(context: ReportContext, filter: ReportFilter): Report {
  return renderExecutions(collectExecutions(context, filter), context, filter)
}

/**
 * Reads the executions report's data from the ledger of `context`; with `ledger` (one of several),
 * each row names it.
 *
 * @example
 * collectExecutions({ ledger, now: Date.now }, { limit: 1000 }, 'shard-a.sqlite').rows[0].ledger
 */
export function collectExecutions(
  context: ReportContext,
  filter: ReportFilter,
  ledger?: string,
): ExecutionsData {
  const database = context.ledger.database
  const { where, params } = executionFilterSql(filter, 'e')
  // Counts cover the whole selection, from the reason class kept on each execution.
  const counts = database
    .prepare<Record<string, string | number>, { state: string; reason_class: string; count: number }>(
      `SELECT e.state, e.reason_class, count(*) AS count FROM executions e WHERE ${where}
       GROUP BY e.state, e.reason_class`,
    )
    .all(params)
  const rows = database
    .prepare<Record<string, string | number>, ExecutionReportRow>(
      `SELECT e.id, e.created_at_ms, e.chain_id, e.ticker, e.side, e.amount_in, e.amount_type, e.strategy,
              e.state, e.reason, e.reason_class
       FROM executions e WHERE ${where} ORDER BY e.id DESC${filter.limit === undefined ? '' : ' LIMIT @limit'}`,
    )
    .all(filter.limit === undefined ? params : { ...params, limit: filter.limit })
  return { counts, rows: ledger === undefined ? rows : rows.map((row) => ({ ledger, ...row })) }
}

/**
 * The executions data of several ledgers as one: counts added per state and reason class; the
 * rows interleaved newest first by creation time (each ledger's own order, by id, kept; the ledger
 * given first first on a tie), the newest `filter.limit` of them kept.
 *
 * @example
 * mergeExecutions([a, b], { limit: 1000 }).rows.length // ≤ 1000
 */
export function mergeExecutions(parts: readonly ExecutionsData[], filter: ReportFilter): ExecutionsData {
  const counts = new Map<string, { state: string; reason_class: string; count: number }>()
  for (const part of parts)
    for (const row of part.counts) {
      const key = `${row.state}|${row.reason_class}`
      const sum = counts.get(key)
      if (sum) sum.count += row.count
      else counts.set(key, { ...row })
    }
  const rows = interleave(
    parts.map((part) => part.rows),
    (a, b) => a.created_at_ms > b.created_at_ms,
  )
  return {
    counts: [...counts.values()],
    rows: filter.limit === undefined ? rows : rows.slice(0, filter.limit),
  }
}

/**
 * The executions report of its data; with `ledgers` (several read), the executions table names
 * each row's ledger first.
 *
 * @example
 * renderExecutions(mergeExecutions(parts, filter), context, filter, ['a.sqlite', 'b.sqlite'])
 */
export function renderExecutions(
  data: ExecutionsData,
  context: ReportRenderContext,
  filter: ReportFilter,
  ledgers?: readonly string[],
): Report {
  const { counts, rows } = data
  const total = counts.reduce((sum, row) => sum + row.count, 0)
  const byState = new Map<string, number>()
  for (const row of counts) byState.set(row.state, (byState.get(row.state) ?? 0) + row.count)
  const byReason = counts.map((row) => ({
    state: row.state,
    reasonClass: row.reason_class,
    count: row.count,
  }))
  const executions: Record<string, ReportValue>[] = rows.map((row) => ({
    ...(ledgers === undefined ? {} : { ledger: row.ledger ?? null }),
    id: row.id,
    created_at: new Date(row.created_at_ms).toISOString(),
    chain_id: row.chain_id,
    ticker: row.ticker,
    side: row.side,
    amount: row.amount_in,
    amount_unit: row.amount_type === 'stablecoin' ? 'asset' : 'shares',
    strategy: row.strategy,
    state: row.state,
    reason_class: row.reason_class,
    reason: row.reason,
  }))
  const sharePct = (count: number) => percentOf(count, total)
  return {
    name: 'executions',
    generatedAt: new Date(context.now()).toISOString(),
    filter,
    tables: [
      {
        key: 'by_state',
        title: 'Executions by state',
        columns: [
          { key: 'state', title: 'State', kind: 'text' },
          { key: 'executions', title: 'Executions', kind: 'integer' },
          { key: 'share_pct', title: 'Share', kind: 'percent' },
        ],
        rows: [...byState]
          .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
          .map(([state, count]) => ({ state, executions: count, share_pct: sharePct(count) })),
      },
      {
        key: 'by_reason',
        title: 'Executions by state and reason class',
        columns: [
          { key: 'state', title: 'State', kind: 'text' },
          { key: 'reason_class', title: 'Reason class', kind: 'text' },
          { key: 'executions', title: 'Executions', kind: 'integer' },
          { key: 'share_pct', title: 'Share', kind: 'percent' },
        ],
        rows: byReason
          .sort(
            (a, b) =>
              a.state.localeCompare(b.state) ||
              b.count - a.count ||
              a.reasonClass.localeCompare(b.reasonClass),
          )
          .map((entry) => ({
            state: entry.state,
            reason_class: entry.reasonClass,
            executions: entry.count,
            share_pct: sharePct(entry.count),
          })),
      },
      {
        key: 'executions',
        title: 'Executions, newest first',
        columns: withLedgerColumn(executionColumns, ledgers),
        rows: executions,
      },
    ],
    notes: [
      ...(filter.limit !== undefined && rows.length < total
        ? [
            `The executions table shows the newest ${rows.length} of the ${total} executions selected (--all shows every one); the counts cover all ${total}.`,
          ]
        : []),
      'Executions are selected by creation time (--since inclusive, --until exclusive), chain, ticker and strategy.',
      "Amounts are the intent's request in natural units: the asset to spend (unit asset) or a share quantity (unit shares).",
      "The reason is the execution's last transition's; its class (kept with it, src/store/executionReasonClass.ts) groups reasons: settled, in progress, guard <rule>, risk limit, kill switch, cancelled, no quote with enough validity, simulation failed, reverted on chain, mined after the quote expired, …, other.",
      'Shares are percentages of the executions selected, rounded half up to two decimals.',
      ...(ledgers === undefined
        ? []
        : [
            "Several ledgers: counts add up; the executions of every ledger are listed newest first by creation time (each ledger's in its own order), the ID being the ledger's own (column Ledger).",
          ]),
    ],
  }
}

/** The executions report in three steps (src/report/acrossLedgers.ts). */
export const executionsKind: ReportKind<ExecutionsData> = {
  collect: collectExecutions,
  merge: mergeExecutions,
  render: renderExecutions,
}

/** The columns of the `executions` table. */
const executionColumns: readonly ReportColumn[] = [
  { key: 'id', title: 'ID', kind: 'integer' },
  { key: 'created_at', title: 'Created', kind: 'time' },
  { key: 'chain_id', title: 'Chain', kind: 'integer' },
  { key: 'ticker', title: 'Ticker', kind: 'text' },
  { key: 'side', title: 'Side', kind: 'text' },
  { key: 'amount', title: 'Amount', kind: 'decimal' },
  { key: 'amount_unit', title: 'Unit', kind: 'text' },
  { key: 'strategy', title: 'Strategy', kind: 'text', wide: true },
  { key: 'state', title: 'State', kind: 'text' },
  { key: 'reason_class', title: 'Reason class', kind: 'text', wide: true },
  { key: 'reason', title: 'Reason', kind: 'text' },
]

/** `count / total` as a percentage with two decimals (half up), computed in integers. */
function percentOf(count: number, total: number): string {
  if (total === 0) return '0'
  const hundredths = Math.floor((count * 20_000) / total + 1) >> 1
  const whole = Math.floor(hundredths / 100)
  const fraction = String(hundredths % 100)
    .padStart(2, '0')
    .replace(/0+$/, '')
  return fraction === '' ? String(whole) : `${whole}.${fraction}`
}
