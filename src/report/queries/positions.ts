import { exchangeNames, isExchangeCode } from '@stockroute/client/domain/markets.js'
import { priceDecimals } from '@stockroute/client/domain/units.js'
import { averagePrice } from '../../store/positionAccounting.js'
import { type PositionRow, stateOfRow } from '../../store/positionRows.js'
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
import { closedMarketNotes } from './closedMarketNotes.js'
import {
  mergeReportPositions,
  type ReportPosition,
  reportPositionsOf,
  severalLedgersNotes,
} from './reportPositions.js'
import { tokenScope } from './tokenScope.js'
import { valuePositionAt } from './valuePosition.js'

/** The columns of the positions table (shared with the summary's open positions). */
export const positionColumns: readonly ReportColumn[] = [
  { key: 'chain_id', title: 'Chain', kind: 'integer' },
  { key: 'ticker', title: 'Ticker', kind: 'text' },
  { key: 'exchange', title: 'Exchange', kind: 'text', wide: true },
  { key: 'token_kind', title: 'Token', kind: 'text', wide: true },
  { key: 'token_address', title: 'Token address', kind: 'text', wide: true },
  { key: 'balance', title: 'Balance', kind: 'decimal', unit: 'shares' },
  { key: 'asset_token', title: 'Asset', kind: 'text' },
  { key: 'avg_price', title: 'Avg price (asset/share)', kind: 'decimal' },
  { key: 'cost_basis', title: 'Cost basis', kind: 'decimal', wide: true },
  { key: 'realized_pnl', title: 'Realized PnL', kind: 'decimal' },
  { key: 'price', title: 'Price (asset/share)', kind: 'decimal' },
  { key: 'price_source', title: 'Price source', kind: 'text', wide: true },
  { key: 'market_value', title: 'Market value', kind: 'decimal', wide: true },
  { key: 'unrealized_pnl', title: 'Unrealized PnL', kind: 'decimal' },
  { key: 'currency', title: 'Currency', kind: 'text', wide: true },
  { key: 'avg_price_ccy', title: 'Avg price (currency)', kind: 'decimal', wide: true },
  { key: 'price_ccy', title: 'Price (currency)', kind: 'decimal', wide: true },
  { key: 'unrealized_pnl_ccy', title: 'Unrealized PnL (currency)', kind: 'decimal', wide: true },
]

/** What the positions report shows, as read from one ledger or merged from several. */
export type PositionsData = { positions: ReportPosition[] }

/** The method notes. */
const positionsNotes: readonly string[] = [
  'Method: average cost (src/store/positionAccounting.ts). A buy adds its asset cost, fee included, to the cost basis; a sell removes the sold share of the cost basis (rounded away from zero) and realizes the proceeds net of fee minus that cost. Splits keep the cost basis and scale the balance; delistings realize compensation minus cost basis.',
  "Amounts are in the chain's asset (column Asset), prices per whole share. Unrealized PnL = balance × price − cost basis; price: the latest market price when given (converted to the asset at the engine's FX rate, rounded down), else the last fill's price adjusted for later splits (price_source \"last fill\").",
  "Currency columns: the market's currency (USD, HKD, KRW) at the engine's FX rate (config execution.fxRates, else HKD 0.1285, KRW 0.00072 USD).",
  "Filters: chain and ticker (a renamed position matches its former tickers); strategy, since and until do not apply to positions (they are the wallet's, as of now).",
]

/**
 * The `positions` report: every position of the ledger (the `positions` table, maintained by the
 * average-cost fold of src/store/positionAccounting.ts), with its balance in the token's units
 * (whole shares for StockTokens, decimal shares for ShareTokens), average price, cost basis and
 * realized PnL in the chain's asset, and its unrealized PnL at the market price
 * (`context.marketPrices`) or else at the last fill's price (`price_source` says which); HK and KR
 * positions also in their market's currency at the engine's FX rate. Flat positions with realized
 * PnL are listed too (balance 0). Filters: chain, ticker (current or former); strategy and time
 * do not apply (a position is the wallet's, shared by strategies, and is as of now).
 *
 * @example
 * const report = positionsReport({ ledger, now: Date.now }, { chainId: 31337 })
 * report.tables[0].rows[0].avg_price // '150.25'
 */
export function positionsReport(context: ReportContext, filter: ReportFilter): Report {
  return renderPositions(collectPositions(context, filter), context, filter)
}

/**
 * Reads the positions in scope (chain, ticker) from the ledger of `context`; with `ledger` (one of
 * several), each names it.
 *
 * @example
 * collectPositions({ ledger, now: Date.now }, {}, 'shard-a.sqlite').positions[0]?.ledgers // ['shard-a.sqlite']
 */
export function collectPositions(
  context: ReportContext,
  filter: ReportFilter,
  ledger?: string,
): PositionsData {
  const database = context.ledger.database
  const inScope = tokenScope(database, filter)
  const states = database
    .prepare<[number | null, number | null], PositionRow>(
      'SELECT * FROM positions WHERE (? IS NULL OR chain_id = ?) ORDER BY chain_id, ticker, token_address',
    )
    .all(filter.chainId ?? null, filter.chainId ?? null)
    .filter((row) => inScope === undefined || inScope(row.chain_id, row.token_address))
    .map(stateOfRow)
  return { positions: reportPositionsOf(database, states, ledger) }
}

/**
 * The positions of several ledgers as one: those of a token merged ({@link mergeReportPositions}:
 * balance, cost basis and realized PnL added, average price of the sums, priced at the latest
 * last fill).
 *
 * @example
 * mergePositions([a, b]).positions.length // tokens held in either
 */
export function mergePositions(parts: readonly PositionsData[]): PositionsData {
  return { positions: mergeReportPositions(parts.map((part) => part.positions)) }
}

/**
 * The positions report of its data, by chain, ticker and token; with `ledgers` (several read), each
 * row names the ledgers holding it, and a note names the positions whose pooled figures may differ.
 *
 * @example
 * renderPositions(mergePositions(parts), context, filter, ['a.sqlite', 'b.sqlite'])
 */
export function renderPositions(
  data: PositionsData,
  context: ReportRenderContext,
  filter: ReportFilter,
  ledgers?: readonly string[],
): Report {
  const positions = [...data.positions].sort((a, b) => compareKeys(sortKey(a.state), sortKey(b.state)))
  return {
    name: 'positions',
    generatedAt: new Date(context.now()).toISOString(),
    filter,
    tables: [
      {
        key: 'positions',
        title: 'Positions (average cost)',
        columns: ledgers === undefined ? positionColumns : [ledgersColumn, ...positionColumns],
        rows: positions.map((position) => ({
          ...(ledgers === undefined ? {} : { ledgers: position.ledgers.join(', ') }),
          ...positionCells(context, position),
        })),
      },
    ],
    notes: [
      ...(ledgers === undefined ? positionsNotes : [...positionsNotes, ...severalLedgersNotes(positions)]),
      // Market prices read while their exchange was closed (lunch, night, holiday) say so.
      ...closedMarketNotes(
        context,
        positions.map((position) => position.state),
      ),
    ],
  }
}

/** The positions report in three steps (src/report/acrossLedgers.ts). */
export const positionsKind: ReportKind<PositionsData> = {
  collect: collectPositions,
  merge: mergePositions,
  render: renderPositions,
}

/** The column of the positions table naming the ledgers that hold each position (several read). */
const ledgersColumn: ReportColumn = { key: 'ledgers', title: 'Ledgers', kind: 'text' }

/** A position's row: amounts in its units, valued at the market or its last fill. */
function positionCells(
  context: Pick<ReportRenderContext, 'marketPrices' | 'fxRates'>,
  position: ReportPosition,
): Record<string, ReportValue> {
  const state = position.state
  const tokenDecimals = state.tokenKind === 'share' ? 18 : 0
  const asset = (value: bigint | null) => (value === null ? null : formatAmount(value, state.assetDecimals))
  const money = (value: bigint | null) => (value === null ? null : formatAmount(value, priceDecimals))
  const value = valuePositionAt(context, state, () => position.lastFill()?.price ?? null)
  return {
    chain_id: state.chainId,
    ticker: state.ticker,
    exchange: isExchangeCode(state.exchange) ? exchangeNames[state.exchange] : String(state.exchange),
    token_kind: state.tokenKind,
    token_address: state.tokenAddress,
    balance: formatAmount(state.balance, tokenDecimals),
    asset_token: state.assetToken,
    avg_price: asset(averagePrice(state)),
    cost_basis: asset(state.costBasis),
    realized_pnl: asset(state.realizedPnl),
    price: asset(value.price),
    price_source: value.priceSource,
    market_value: asset(value.marketValue),
    unrealized_pnl: asset(value.unrealized),
    currency: value.currency,
    avg_price_ccy: money(value.avgPriceInCurrency),
    price_ccy: money(value.priceInCurrency),
    unrealized_pnl_ccy: money(value.unrealizedInCurrency),
  }
}

/** The order of the positions table: chain, ticker, token (as SQLite's binary collation orders text). */
function sortKey(state: ReportPosition['state']): [number, string, string] {
  return [state.chainId, state.ticker, state.tokenAddress]
}

function compareKeys(a: [number, string, string], b: [number, string, string]): number {
  if (a[0] !== b[0]) return a[0] - b[0]
  for (const index of [1, 2] as const) if (a[index] !== b[index]) return a[index] < b[index] ? -1 : 1
  return 0
}
