import { exchangeNames, isExchangeCode } from '@stockroute/client/domain/markets.js'
import { priceDecimals } from '@stockroute/client/domain/units.js'
import { type PositionRow, stateOfRow } from '../../store/positionRows.js'
import { formatAmount } from '../formatAmount.js'
import type { Report, ReportColumn, ReportContext, ReportFilter, ReportValue } from '../types.js'
import { tokenScope } from './tokenScope.js'
import { valuePosition } from './valuePosition.js'

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
  return {
    name: 'positions',
    generatedAt: new Date(context.now()).toISOString(),
    filter,
    tables: [
      {
        key: 'positions',
        title: 'Positions (average cost)',
        columns: positionColumns,
        rows: positionRows(context, filter),
      },
    ],
    notes: [
      'Method: average cost (src/store/positionAccounting.ts). A buy adds its asset cost, fee included, to the cost basis; a sell removes the sold share of the cost basis (rounded away from zero) and realizes the proceeds net of fee minus that cost. Splits keep the cost basis and scale the balance; delistings realize compensation minus cost basis.',
      "Amounts are in the chain's asset (column Asset), prices per whole share. Unrealized PnL = balance × price − cost basis; price: the latest market price when given (converted to the asset at the engine's FX rate, rounded down), else the last fill's price adjusted for later splits (price_source \"last fill\").",
      "Currency columns: the market's currency (USD, HKD, KRW) at the engine's FX rate (config execution.fxRates, else HKD 0.1285, KRW 0.00072 USD).",
      "Filters: chain and ticker (a renamed position matches its former tickers); strategy, since and until do not apply to positions (they are the wallet's, as of now).",
    ],
  }
}

/**
 * The rows of the positions table for `filter` (chain, ticker): shared with the summary.
 *
 * @example
 * positionRows({ ledger, now: Date.now }, {}).filter((row) => row.balance !== '0')
 */
export function positionRows(
  context: ReportContext,
  filter: ReportFilter,
): Readonly<Record<string, ReportValue>>[] {
  const database = context.ledger.database
  const inScope = tokenScope(database, filter)
  const rows = database
    .prepare<[number | null, number | null], PositionRow>(
      'SELECT * FROM positions WHERE (? IS NULL OR chain_id = ?) ORDER BY chain_id, ticker, token_address',
    )
    .all(filter.chainId ?? null, filter.chainId ?? null)
  return rows
    .filter((row) => inScope === undefined || inScope(row.chain_id, row.token_address))
    .map((row) => {
      const position = stateOfRow(row)
      const tokenDecimals = position.tokenKind === 'share' ? 18 : 0
      const asset = (value: bigint | null) =>
        value === null ? null : formatAmount(value, row.asset_decimals)
      const money = (value: bigint | null) => (value === null ? null : formatAmount(value, priceDecimals))
      const value = valuePosition(database, context, position)
      return {
        chain_id: row.chain_id,
        ticker: row.ticker,
        exchange: isExchangeCode(row.exchange) ? exchangeNames[row.exchange] : String(row.exchange),
        token_kind: row.token_kind,
        token_address: row.token_address,
        balance: formatAmount(position.balance, tokenDecimals),
        asset_token: row.asset_token,
        avg_price: asset(BigInt(row.avg_price)),
        cost_basis: asset(position.costBasis),
        realized_pnl: asset(position.realizedPnl),
        price: asset(value.price),
        price_source: value.priceSource,
        market_value: asset(value.marketValue),
        unrealized_pnl: asset(value.unrealized),
        currency: value.currency,
        avg_price_ccy: money(value.avgPriceInCurrency),
        price_ccy: money(value.priceInCurrency),
        unrealized_pnl_ccy: money(value.unrealizedInCurrency),
      }
    })
}
