import { formatAmount } from '../formatAmount.js'
import type { Report, ReportContext, ReportFilter, ReportValue } from '../types.js'
import { executionFilterSql } from './executionFilterSql.js'
import { realizedBreakdown } from './realizedBreakdown.js'
import { selectIncome } from './selectIncome.js'
import { emptySums, sumsCells } from './sumsCells.js'
import { valuePosition } from './valuePosition.js'

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
  const database = context.ledger.database
  const { where, params } = executionFilterSql(filter, 'e')
  const states = database
    .prepare<Record<string, string | number | null>, { state: string; count: number }>(
      `SELECT e.state, count(*) AS count FROM executions e WHERE ${where} GROUP BY e.state ORDER BY e.state`,
    )
    .all(params)
  const executionTimes = database
    .prepare<Record<string, string | number | null>, { first: number | null; last: number | null }>(
      // Two subqueries, so that unfiltered each is one seek in its index.
      `SELECT (SELECT min(e.created_at_ms) FROM executions e WHERE ${where}) AS first,
         (SELECT max(e.updated_at_ms) FROM executions e WHERE ${where}) AS last`,
    )
    .get(params)
  const breakdown = realizedBreakdown(database, filter)
  const income = selectIncome(database, filter)
  const incomeByAsset = new Map<string, bigint>()
  let first = min(breakdown.first, executionTimes?.first ?? undefined)
  let last = max(breakdown.last, executionTimes?.last ?? undefined)
  for (const row of income) {
    const asset = `${row.chain_id}:${row.asset_token}`
    incomeByAsset.set(asset, (incomeByAsset.get(asset) ?? 0n) + BigInt(row.amount))
    if (!breakdown.byAsset.has(asset))
      breakdown.byAsset.set(asset, emptySums(row.chain_id, row.asset_token, row.asset_decimals))
    first = min(first, row.recorded_at_ms)
    last = max(last, row.recorded_at_ms)
  }
  const open = new Map<string, { count: number; unrealized: bigint; unpriced: number }>()
  for (const position of breakdown.positions.values()) {
    if (position.balance === 0n) continue
    const asset = `${position.chainId}:${position.assetToken}`
    if (!breakdown.byAsset.has(asset))
      breakdown.byAsset.set(asset, emptySums(position.chainId, position.assetToken, position.assetDecimals))
    const sums = open.get(asset) ?? { count: 0, unrealized: 0n, unpriced: 0 }
    const value = valuePosition(database, context, position)
    sums.count += 1
    if (value.unrealized === null) sums.unpriced += 1
    else sums.unrealized += value.unrealized
    open.set(asset, sums)
  }
  const kill = database
    .prepare<[], { halted: number; reason: string | null; changed_at_ms: number | null }>(
      'SELECT halted, reason, changed_at_ms FROM kill_switch WHERE id = 1',
    )
    .get()
  const time = (ms: number | undefined | null) =>
    ms === undefined || ms === null ? null : new Date(ms).toISOString()
  const chains: Record<string, ReportValue>[] = [...breakdown.byAsset]
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
      {
        key: 'chains',
        title: 'Per chain and asset',
        columns: [
          { key: 'chain_id', title: 'Chain', kind: 'integer' },
          { key: 'asset_token', title: 'Asset', kind: 'text' },
          { key: 'fills', title: 'Fills', kind: 'integer' },
          { key: 'buys', title: 'Buys', kind: 'integer' },
          { key: 'sells', title: 'Sells', kind: 'integer' },
          { key: 'bought', title: 'Bought (asset)', kind: 'decimal' },
          { key: 'sold', title: 'Sold (asset)', kind: 'decimal' },
          { key: 'realized_pnl', title: 'Realized PnL', kind: 'decimal' },
          { key: 'unrealized_pnl', title: 'Unrealized PnL (now)', kind: 'decimal' },
          { key: 'fees', title: 'Fees', kind: 'decimal' },
          { key: 'income', title: 'Income', kind: 'decimal' },
          { key: 'corporate_actions', title: 'Corporate actions', kind: 'integer' },
          { key: 'open_positions', title: 'Open positions', kind: 'integer' },
        ],
        rows: chains,
      },
      {
        key: 'run',
        title: 'Run',
        columns: [
          { key: 'executions', title: 'Executions', kind: 'integer' },
          { key: 'fills', title: 'Fills', kind: 'integer' },
          { key: 'open_positions', title: 'Open positions', kind: 'integer' },
          { key: 'first_activity', title: 'First activity', kind: 'time' },
          { key: 'last_activity', title: 'Last activity', kind: 'time' },
          { key: 'kill_switch', title: 'Kill switch', kind: 'text' },
          { key: 'kill_switch_reason', title: 'Kill switch reason', kind: 'text' },
          { key: 'kill_switch_changed_at', title: 'Kill switch changed', kind: 'time' },
        ],
        rows: [
          {
            executions: states.reduce((sum, row) => sum + row.count, 0),
            fills: chains.reduce((sum, row) => sum + (row.fills as number), 0),
            open_positions: [...open.values()].reduce((sum, row) => sum + row.count, 0),
            first_activity: time(first),
            last_activity: time(last),
            kill_switch: kill?.halted === 1 ? 'halted' : 'running',
            kill_switch_reason: kill?.reason ?? null,
            kill_switch_changed_at: time(kill?.changed_at_ms),
          },
        ],
      },
    ],
    notes: [
      'Realized PnL by average cost (src/store/positionAccounting.ts), equal to the positions table when unfiltered; fees are inside cost basis and proceeds, shown apart; income (dividends) is beside realized PnL.',
      "Unrealized PnL and open positions are as of now, at the market price when given, else at the last fill's price (see the positions report).",
      'Filters: chain, ticker, strategy, since/until: executions by creation time, fills by block time, corporate actions and income by recording time. The kill switch is global. Activity spans executions, fills, corporate actions and income in scope.',
    ],
  }
}

function min(a: number | undefined, b: number | undefined) {
  return a === undefined ? b : b === undefined ? a : Math.min(a, b)
}
function max(a: number | undefined, b: number | undefined) {
  return a === undefined ? b : b === undefined ? a : Math.max(a, b)
}
