import { tokenKinds } from '@stockroute/client/domain/markets.js'
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
import { interleave, withLedgerColumn } from './ledgerLists.js'
import { type IncomeReportRow, selectIncome } from './selectIncome.js'
import { tokenScope } from './tokenScope.js'

type ActionRow = {
  seq: number
  chain_id: number
  token_address: string
  kind: string
  /** A split's ratio or a ticker change's tickers; null for the kinds with amounts (below). */
  detail: string | null
  /** A transfer's quantity, in base units of the stock token. */
  quantity: string | null
  /** A transfer's cost or a delisting's compensation, in base units of the asset. */
  amount: string | null
  ticker: string | null
  reference: string | null
  reason: string
  recorded_at_ms: number
}

/** An income payment total of one UTC day, chain and asset. */
type IncomeDay = {
  day: string
  chainId: number
  asset: string
  decimals: number
  total: bigint
  count: number
}

/** The columns of the `income` table. */
const incomeColumns: readonly ReportColumn[] = [
  { key: 'time', title: 'Recorded', kind: 'time' },
  { key: 'chain_id', title: 'Chain', kind: 'integer' },
  { key: 'ticker', title: 'Ticker', kind: 'text' },
  { key: 'kind', title: 'Kind', kind: 'text' },
  { key: 'quantity', title: 'Shares held', kind: 'decimal' },
  { key: 'amount', title: 'Amount (asset)', kind: 'decimal' },
  { key: 'asset_token', title: 'Asset', kind: 'text' },
  { key: 'currency', title: 'Currency', kind: 'text' },
  { key: 'gross', title: 'Gross (currency)', kind: 'decimal', wide: true },
  { key: 'tax', title: 'Tax (currency)', kind: 'decimal', wide: true },
  { key: 'fee', title: 'Fee (currency)', kind: 'decimal', wide: true },
  { key: 'net', title: 'Net (currency)', kind: 'decimal' },
  { key: 'tax_rate', title: 'Tax rate %', kind: 'integer', wide: true },
  { key: 'reference', title: 'Reference', kind: 'text', wide: true },
  { key: 'tx_hash', title: 'Transaction', kind: 'text', wide: true },
]

/** The columns of the `income_by_day` table. */
const incomeByDayColumns: readonly ReportColumn[] = [
  { key: 'day', title: 'Day', kind: 'text' },
  { key: 'chain_id', title: 'Chain', kind: 'integer' },
  { key: 'asset_token', title: 'Asset', kind: 'text' },
  { key: 'count', title: 'Payments', kind: 'integer' },
  { key: 'total', title: 'Total (asset)', kind: 'decimal' },
]

/** The columns of the `corporate_actions` table. */
const corporateActionColumns: readonly ReportColumn[] = [
  { key: 'time', title: 'Recorded', kind: 'time' },
  { key: 'chain_id', title: 'Chain', kind: 'integer' },
  { key: 'ticker', title: 'Ticker', kind: 'text' },
  { key: 'token_address', title: 'Token', kind: 'text', wide: true },
  { key: 'kind', title: 'Kind', kind: 'text' },
  { key: 'detail', title: 'Detail', kind: 'text' },
  { key: 'reason', title: 'Reason', kind: 'text' },
  { key: 'reference', title: 'Reference', kind: 'text', wide: true },
]

/** The columns of the `corporate_action_counts` table. */
const corporateActionCountColumns: readonly ReportColumn[] = [
  { key: 'kind', title: 'Kind', kind: 'text' },
  { key: 'count', title: 'Applied', kind: 'integer' },
]

/** The method notes. */
const incomeNotes: readonly string[] = [
  "Income is what the chain paid (column Amount, in the asset); gross, tax, fee and net are the service's figures in the stock's own currency. Income is not part of cost basis or realized PnL (average cost); reports add it beside them.",
  'Filters: chain, ticker (a renamed token matches its former tickers) and time (the time the ledger recorded the income or the action; since inclusive, until exclusive). Income and corporate actions belong to no strategy: a strategy filter leaves these tables empty.',
  'Corporate action detail: split ratio numerator/denominator as applied (the balance is multiplied by it), delisting compensation and transfer cost in asset base units.',
]

/** What the income report shows, as read from one ledger or merged from several. */
export type IncomeData = {
  /** The income selected, oldest first, with the units of its position (and its ledger, of several). */
  income: { row: IncomeReportRow; position: PositionUnits | undefined; ledger?: string | undefined }[]
  /** The corporate actions selected, in the order applied, with their position's units. */
  actions: { row: ActionRow; position: PositionUnits | undefined; ledger?: string | undefined }[]
}

/**
 * The `income` report: dividends and other income (the `income` table: what the chain paid, in
 * the asset, beside the service's gross, tax, fee and net in the stock's own currency), their
 * totals per UTC day and asset, and the corporate actions applied to positions (splits,
 * delistings, transfers from `position_adjustments`, ticker changes from `position_renames`),
 * listed and counted per kind. Filters: chain, ticker (current or former), time (recording time);
 * strategy: income and corporate actions belong to no strategy, so a strategy filter empties it.
 *
 * @example
 * const report = incomeReport({ ledger, now: Date.now }, {})
 * report.tables.find((table) => table.key === 'income')?.rows // [{ amount: '22.5', … }]
 */
export function incomeReport(context: ReportContext, filter: ReportFilter): Report {
  return renderIncome(collectIncome(context, filter), context, filter)
}

/**
 * Reads the income report's data from the ledger of `context`; with `ledger` (one of several),
 * each row names it.
 *
 * @example
 * collectIncome({ ledger, now: Date.now }, {}, 'shard-a.sqlite').income[0]?.ledger
 */
export function collectIncome(context: ReportContext, filter: ReportFilter, ledger?: string): IncomeData {
  const database = context.ledger.database
  const positionOf = positionLookup(database)
  const tag = ledger === undefined ? {} : { ledger }
  return {
    income: selectIncome(database, filter).map((row) => ({
      row,
      position: positionOf(row.chain_id, row.token_address),
      ...tag,
    })),
    actions: selectCorporateActions(database, filter).map((row) => ({
      row,
      position: positionOf(row.chain_id, row.token_address),
      ...tag,
    })),
  }
}

/**
 * The income data of several ledgers as one: income and corporate actions interleaved by recording
 * time (each ledger's own order kept; the ledger given first first on a tie). A corporate action
 * applied to the positions of several ledgers is listed (and counted) once per ledger.
 *
 * @example
 * mergeIncome([a, b], {}).income.length // a.income.length + b.income.length
 */
export function mergeIncome(parts: readonly IncomeData[]): IncomeData {
  return {
    income: interleave(
      parts.map((part) => part.income),
      (a, b) => a.row.recorded_at_ms < b.row.recorded_at_ms,
    ),
    actions: interleave(
      parts.map((part) => part.actions),
      (a, b) => a.row.recorded_at_ms < b.row.recorded_at_ms,
    ),
  }
}

/**
 * The income report of its data; with `ledgers` (several read), the income and corporate action
 * tables name each row's ledger first.
 *
 * @example
 * renderIncome(mergeIncome(parts), context, filter, ['a.sqlite', 'b.sqlite'])
 */
export function renderIncome(
  data: IncomeData,
  context: ReportRenderContext,
  filter: ReportFilter,
  ledgers?: readonly string[],
): Report {
  const tag = (ledger: string | undefined) => (ledgers === undefined ? {} : { ledger: ledger ?? null })
  const income = data.income.map((entry) => entry.row)
  const actions = data.actions.map((entry) => entry.row)
  return {
    name: 'income',
    generatedAt: new Date(context.now()).toISOString(),
    filter,
    tables: [
      {
        key: 'income',
        title: 'Income (dividends)',
        columns: withLedgerColumn(incomeColumns, ledgers),
        rows: data.income.map((entry) => ({
          ...tag(entry.ledger),
          ...incomeCells(entry.row, entry.position),
        })),
      },
      {
        key: 'income_by_day',
        title: 'Income per day (UTC) and asset',
        columns: incomeByDayColumns,
        rows: incomeByDay(income).map(incomeDayCells),
      },
      {
        key: 'corporate_actions',
        title: 'Corporate actions applied',
        columns: withLedgerColumn(corporateActionColumns, ledgers),
        rows: data.actions.map((entry) => ({
          ...tag(entry.ledger),
          ...corporateActionCells(entry.row, entry.position),
        })),
      },
      {
        key: 'corporate_action_counts',
        title: 'Corporate actions per kind',
        columns: corporateActionCountColumns,
        rows: corporateActionCounts(actions),
      },
    ],
    notes:
      ledgers === undefined
        ? incomeNotes
        : [
            ...incomeNotes,
            "Several ledgers: income and corporate actions of every ledger are listed by recording time (each ledger's in its own order, column Ledger), and the totals add them up; a corporate action applied to the positions of several ledgers is listed and counted once per ledger.",
          ],
  }
}

/** The income report in three steps (src/report/acrossLedgers.ts). */
export const incomeKind: ReportKind<IncomeData> = {
  collect: collectIncome,
  merge: mergeIncome,
  render: renderIncome,
}

/** One income payment as a row of the `income` table: the shares held in the stock token's units. */
function incomeCells(row: IncomeReportRow, position: PositionUnits | undefined): Record<string, ReportValue> {
  return {
    time: new Date(row.recorded_at_ms).toISOString(),
    chain_id: row.chain_id,
    ticker: row.ticker,
    kind: row.kind,
    quantity:
      row.quantity === null
        ? null
        : readable(row.quantity, position && tokenKinds[position.token_kind].decimals),
    amount: formatAmount(BigInt(row.amount), row.asset_decimals),
    asset_token: row.asset_token,
    currency: row.original_currency,
    gross: row.original_gross,
    tax: row.original_tax,
    fee: row.original_fee,
    net: row.original_net,
    tax_rate: row.tax_rate,
    reference: row.reference,
    tx_hash: row.tx_hash,
  }
}

/** The income per UTC day (of its recording), chain and asset, in the order first paid. */
function incomeByDay(income: readonly IncomeReportRow[]): IncomeDay[] {
  const byDay = new Map<string, IncomeDay>()
  for (const row of income) {
    const day = new Date(row.recorded_at_ms).toISOString().slice(0, 10)
    const key = `${day}|${row.chain_id}|${row.asset_token}`
    const group = byDay.get(key) ?? {
      day,
      chainId: row.chain_id,
      asset: row.asset_token,
      decimals: row.asset_decimals,
      total: 0n,
      count: 0,
    }
    group.total += BigInt(row.amount)
    group.count += 1
    byDay.set(key, group)
  }
  return [...byDay.values()]
}

/** One day's income total as a row of the `income_by_day` table. */
function incomeDayCells(group: IncomeDay): Record<string, ReportValue> {
  return {
    day: group.day,
    chain_id: group.chainId,
    asset_token: group.asset,
    count: group.count,
    total: formatAmount(group.total, group.decimals),
  }
}

/**
 * The corporate actions a filter selects (adjustments and ticker changes, in the order applied):
 * chain, ticker (current or former), recording time; none with a strategy filter.
 */
function selectCorporateActions(database: Database.Database, filter: ReportFilter): ActionRow[] {
  if (filter.strategy !== undefined) return []
  const inScope = tokenScope(database, filter)
  return database
    .prepare<Record<string, number | null>, ActionRow>(
      `SELECT seq, chain_id, token_address, kind,
         CASE kind WHEN 'split' THEN ratio_numerator || '/' || ratio_denominator END AS detail,
         quantity, amount, ticker, reference, reason, recorded_at_ms FROM position_adjustments
       WHERE (@chain_id IS NULL OR chain_id = @chain_id)
         AND (@since_ms IS NULL OR recorded_at_ms >= @since_ms) AND (@until_ms IS NULL OR recorded_at_ms < @until_ms)
       UNION ALL
       SELECT seq, chain_id, token_address, 'ticker change', from_ticker || ' → ' || to_ticker, NULL, NULL,
         to_ticker, reference, reason, recorded_at_ms FROM position_renames
       WHERE (@chain_id IS NULL OR chain_id = @chain_id)
         AND (@since_ms IS NULL OR recorded_at_ms >= @since_ms) AND (@until_ms IS NULL OR recorded_at_ms < @until_ms)
       ORDER BY seq`,
    )
    .all({
      chain_id: filter.chainId ?? null,
      since_ms: filter.sinceMs ?? null,
      until_ms: filter.untilMs ?? null,
    })
    .filter((row) => inScope === undefined || inScope(row.chain_id, row.token_address))
}

/** One corporate action as a row of the `corporate_actions` table; without a ticker it takes its position's. */
function corporateActionCells(
  action: ActionRow,
  position: PositionUnits | undefined,
): Record<string, ReportValue> {
  return {
    time: new Date(action.recorded_at_ms).toISOString(),
    chain_id: action.chain_id,
    ticker: action.ticker ?? position?.ticker ?? null,
    token_address: action.token_address,
    kind: action.kind,
    detail: action.detail ?? amountsDetail(action, position),
    reason: action.reason,
    reference: action.reference,
  }
}

/** A position's ticker and units, where the ledger has the position. */
type PositionUnits = { ticker: string; token_kind: 'stock' | 'share'; asset_decimals: number }

/** Looks positions up by chain and token (one prepared statement for the whole report). */
function positionLookup(database: Database.Database) {
  const statement = database.prepare<[number, string], PositionUnits>(
    'SELECT ticker, token_kind, asset_decimals FROM positions WHERE chain_id = ? AND token_address = ?',
  )
  return (chainId: number, tokenAddress: string) => statement.get(chainId, tokenAddress)
}

/**
 * A delisting's compensation or a transfer's quantity and cost, in natural units when the position
 * says which (base units otherwise, marked so).
 */
function amountsDetail(action: ActionRow, position: PositionUnits | undefined): string {
  const amount = readable(action.amount ?? '0', position?.asset_decimals)
  if (action.kind === 'delisting') return `compensation ${amount}`
  const quantity = readable(action.quantity ?? '0', position && tokenKinds[position.token_kind].decimals)
  return `quantity ${quantity}, cost ${amount}`
}

/** Base units as the reports write amounts (formatAmount), or as they are, marked, without decimals. */
function readable(baseUnits: string, decimals: number | undefined): string {
  return decimals === undefined ? `${baseUnits} (base units)` : formatAmount(BigInt(baseUnits), decimals)
}

/** The rows of the `corporate_action_counts` table: how many actions of each kind, in the order first applied. */
function corporateActionCounts(actions: readonly ActionRow[]): Record<string, ReportValue>[] {
  const actionCounts = new Map<string, number>()
  for (const action of actions) actionCounts.set(action.kind, (actionCounts.get(action.kind) ?? 0) + 1)
  return [...actionCounts].map(([kind, count]) => ({ kind, count }))
}
