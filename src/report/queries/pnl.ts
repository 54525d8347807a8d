import { formatAmount } from '../formatAmount.js'
import type {
  Report,
  ReportColumn,
  ReportContext,
  ReportFilter,
  ReportKind,
  ReportRenderContext,
} from '../types.js'
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

const sumColumns: readonly ReportColumn[] = [
  { key: 'chain_id', title: 'Chain', kind: 'integer' },
  { key: 'asset_token', title: 'Asset', kind: 'text' },
  { key: 'realized_pnl', title: 'Realized PnL', kind: 'decimal' },
  { key: 'fees', title: 'Fees', kind: 'decimal' },
  { key: 'bought', title: 'Bought (asset)', kind: 'decimal' },
  { key: 'sold', title: 'Sold (asset)', kind: 'decimal' },
  { key: 'buys', title: 'Buys', kind: 'integer', wide: true },
  { key: 'sells', title: 'Sells', kind: 'integer', wide: true },
  { key: 'corporate_actions', title: 'Corporate actions', kind: 'integer', wide: true },
]

/**
 * The `pnl` report: realized PnL by the average-cost method (the fold of
 * src/store/positionAccounting.ts replayed in seq order, so totals equal the positions table),
 * fees, notional bought and sold, per asset (with income and the current unrealized PnL), per UTC
 * day (with income) and per strategy (of each fill's execution; corporate actions apart), and per
 * token. Filters: chain, ticker (current or former), strategy (fills of it only; no income or
 * corporate actions), time (fills by block time, adjustments and income by recording time).
 *
 * @example
 * const report = pnlReport({ ledger, now: Date.now }, { strategy: 'dca' })
 * report.tables[0].rows // [{ chain_id: 31337, realized_pnl: '12.5', … }]
 */
export function pnlReport(context: ReportContext, filter: ReportFilter): Report {
  return renderPnl(collectPnl(context, filter), context, filter)
}

/** What the pnl report shows, as read from one ledger or merged from several. */
export type PnlData = {
  breakdown: RealizedBreakdown
  income: IncomeReportRow[]
  /** The positions in scope (those of `breakdown.positions`), to value the open ones. */
  positions: ReportPosition[]
}

/**
 * Reads the pnl report's data from the ledger of `context`; with `ledger` (one of several), its
 * positions name it.
 *
 * @example
 * collectPnl({ ledger, now: Date.now }, {}).breakdown.byAsset
 */
export function collectPnl(context: ReportContext, filter: ReportFilter, ledger?: string): PnlData {
  const database = context.ledger.database
  const breakdown = realizedBreakdown(database, filter)
  return {
    breakdown,
    income: selectIncome(database, filter),
    positions: reportPositionsOf(database, [...breakdown.positions.values()], ledger),
  }
}

/**
 * The pnl data of several ledgers as one: every group's sums added, their income together, the
 * positions of a token merged ({@link mergeReportPositions}).
 *
 * @example
 * mergePnl([a, b]).breakdown.byAsset
 */
export function mergePnl(parts: readonly PnlData[]): PnlData {
  return {
    breakdown: mergeRealizedBreakdowns(parts.map((part) => part.breakdown)),
    income: parts.flatMap((part) => part.income),
    positions: mergeReportPositions(parts.map((part) => part.positions)),
  }
}

/**
 * The pnl report of its data; with `ledgers` (several read), notes say how the ledgers merged.
 *
 * @example
 * renderPnl(mergePnl(parts), context, filter, ['a.sqlite', 'b.sqlite'])
 */
export function renderPnl(
  data: PnlData,
  context: ReportRenderContext,
  filter: ReportFilter,
  ledgers?: readonly string[],
): Report {
  const { breakdown, income } = data
  const incomeByAsset = new Map<string, bigint>()
  const incomeByDay = new Map<string, bigint>()
  for (const row of income) {
    const asset = `${row.chain_id}:${row.asset_token}`
    const day = new Date(row.recorded_at_ms).toISOString().slice(0, 10)
    incomeByAsset.set(asset, (incomeByAsset.get(asset) ?? 0n) + BigInt(row.amount))
    incomeByDay.set(`${day}|${asset}`, (incomeByDay.get(`${day}|${asset}`) ?? 0n) + BigInt(row.amount))
    // A day with income only still gets a row.
    if (!breakdown.byDay.has(`${day}|${asset}`))
      breakdown.byDay.set(`${day}|${asset}`, emptySums(row.chain_id, row.asset_token, row.asset_decimals))
    if (!breakdown.byAsset.has(asset))
      breakdown.byAsset.set(asset, emptySums(row.chain_id, row.asset_token, row.asset_decimals))
  }
  // Unrealized is as of now, for the positions in scope (strategy and time do not narrow it).
  const unrealizedByAsset = new Map<string, bigint>()
  const unpriced = new Set<string>()
  for (const { state: position, lastFill } of data.positions) {
    if (position.balance === 0n) continue
    const asset = `${position.chainId}:${position.assetToken}`
    const value = valuePositionAt(context, position, () => lastFill()?.price ?? null)
    if (value.unrealized === null) unpriced.add(position.ticker)
    else unrealizedByAsset.set(asset, (unrealizedByAsset.get(asset) ?? 0n) + value.unrealized)
    if (!breakdown.byAsset.has(asset))
      breakdown.byAsset.set(asset, emptySums(position.chainId, position.assetToken, position.assetDecimals))
  }
  const sorted = <Value>(map: Map<string, Value>) => [...map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  const notes = [
    'Method: average cost (src/store/positionAccounting.ts): a buy adds its asset cost, fee included, to the cost basis; a sell realizes its proceeds net of fee minus the sold share of the cost basis. Splits keep the cost basis; delistings realize compensation minus cost basis. Realized figures replay that fold in ledger order (seq) and equal the positions table.',
    'Fees are already inside cost basis and proceeds: they are shown, not subtracted again. Income (dividends) is beside realized PnL, not inside it.',
    'Per strategy: the strategy of the execution of each fill ("(none)": executions without one); PnL a sell realizes is that of the whole position\'s average cost, whichever strategy bought it. Splits, delistings and ticker changes are under "(corporate action)".',
    "Unrealized PnL is as of now, for the open positions in scope, at the market price when given, else at the last fill's price (see the positions report); strategy and time filters do not narrow it.",
    'Filters: chain, ticker (a renamed token matches its former tickers), strategy (its fills only; no income or corporate actions), since/until (fills by block time, corporate actions and income by recording time; since inclusive, until exclusive). Days are UTC.',
  ]
  if (unpriced.size > 0) notes.push(`No price for ${[...unpriced].join(', ')}: left out of unrealized PnL.`)
  if (ledgers !== undefined)
    notes.push(
      "Several ledgers: every table adds up the figures of every ledger (each realized against its own ledger's average cost); unrealized PnL values the positions merged across ledgers.",
      ...severalLedgersNotes(data.positions),
    )
  return {
    name: 'pnl',
    generatedAt: new Date(context.now()).toISOString(),
    filter,
    tables: [
      {
        key: 'pnl',
        title: 'PnL per asset',
        columns: [
          ...sumColumns,
          { key: 'income', title: 'Income', kind: 'decimal' },
          { key: 'unrealized_pnl', title: 'Unrealized PnL (now)', kind: 'decimal' },
        ],
        rows: sorted(breakdown.byAsset).map(([asset, sums]) => ({
          ...sumsCells(sums),
          income: formatAmount(incomeByAsset.get(asset) ?? 0n, sums.assetDecimals),
          unrealized_pnl: formatAmount(unrealizedByAsset.get(asset) ?? 0n, sums.assetDecimals),
        })),
      },
      {
        key: 'pnl_by_day',
        title: 'PnL per day (UTC)',
        columns: [
          { key: 'day', title: 'Day', kind: 'text' },
          ...sumColumns,
          { key: 'income', title: 'Income', kind: 'decimal' },
        ],
        rows: sorted(breakdown.byDay).map(([key, sums]) => ({
          day: key.slice(0, 10),
          ...sumsCells(sums),
          income: formatAmount(incomeByDay.get(key) ?? 0n, sums.assetDecimals),
        })),
      },
      {
        key: 'pnl_by_strategy',
        title: 'PnL per strategy',
        columns: [{ key: 'strategy', title: 'Strategy', kind: 'text' }, ...sumColumns],
        rows: sorted(breakdown.byStrategy).map(([key, sums]) => ({
          strategy: key.slice(0, key.lastIndexOf('|')),
          ...sumsCells(sums),
        })),
      },
      {
        key: 'pnl_by_token',
        title: 'PnL per token',
        columns: [
          { key: 'ticker', title: 'Ticker', kind: 'text' },
          { key: 'token_address', title: 'Token', kind: 'text' },
          ...sumColumns,
        ],
        rows: sorted(breakdown.byToken).map(([, sums]) => ({
          ticker: sums.ticker,
          token_address: sums.tokenAddress,
          ...sumsCells(sums),
        })),
      },
    ],
    notes,
  }
}

/** The pnl report in three steps (src/report/acrossLedgers.ts). */
export const pnlKind: ReportKind<PnlData> = { collect: collectPnl, merge: mergePnl, render: renderPnl }
