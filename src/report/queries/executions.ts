import type { ExecutionState } from '../../store/index.js'
import type { Report, ReportContext, ReportFilter, ReportValue } from '../types.js'
import { executionFilterSql } from './executionFilterSql.js'

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
  const total = counts.reduce((sum, row) => sum + row.count, 0)
  const byState = new Map<string, number>()
  for (const row of counts) byState.set(row.state, (byState.get(row.state) ?? 0) + row.count)
  const byReason = counts.map((row) => ({
    state: row.state,
    reasonClass: row.reason_class,
    count: row.count,
  }))
  const executions: Record<string, ReportValue>[] = rows.map((row) => ({
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
        columns: [
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
        ],
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
    ],
  }
}

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
