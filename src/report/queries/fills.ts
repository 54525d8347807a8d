import {
  divideHalfAway,
  type FillAmounts,
  fillPriceInMarketCurrency,
  fillPricePerShare,
  formatCentiBps,
} from '@stockroute/client/domain/fillSlippage.js'
import { type ExchangeCode, isExchangeCode, marketCodes } from '@stockroute/client/domain/markets.js'
import { defaultFxRates, type FxRates } from '@stockroute/client/domain/quotePrice.js'
import { priceDecimals } from '@stockroute/client/domain/units.js'
import type Database from 'better-sqlite3'
import { z } from 'zod'
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
import { selectLedgerDays } from './selectLedgerDays.js'
import { tokensOfTicker } from './tokenScope.js'

type FillReportRow = {
  id: number
  chain_id: number
  tx_hash: string
  execution_id: number | null
  quote_id: string
  token_kind: 'stock' | 'share'
  asset_decimals: number
  ticker: string
  exchange: number
  is_buy: 0 | 1
  amount_in: string
  amount_out: string
  fee_amount: string
  block_time: number
  slippage_vs_quote_cbps: number | null
  slippage_vs_market_cbps: number | null
  strategy: string | null
  quote_json: string | null
  market_price: string | null
  market_price_at_ms: number | null
}

/** The part of an execution's stored quote (`executions.quote_json`, engine/storedQuote.ts) read here. */
const quotePartSchema = z.object({
  quoteId: z.string(),
  amountOut: z.string().regex(/^\d+$/),
})

/** Each market's currency. */
const currencyOf: Record<ExchangeCode, string> = { 0: 'USD', 1: 'HKD', 3: 'KRW' }

/** The columns of the `fills` table. */
const fillColumns: readonly ReportColumn[] = [
  { key: 'id', title: 'Fill', kind: 'integer' },
  { key: 'time', title: 'Block time', kind: 'time' },
  { key: 'chain_id', title: 'Chain', kind: 'integer' },
  { key: 'ticker', title: 'Ticker', kind: 'text' },
  { key: 'side', title: 'Side', kind: 'text' },
  { key: 'execution_id', title: 'Execution', kind: 'integer', wide: true },
  { key: 'strategy', title: 'Strategy', kind: 'text', wide: true },
  { key: 'quantity', title: 'Quantity', kind: 'decimal', unit: 'shares' },
  { key: 'asset_amount', title: 'Asset amount', kind: 'decimal' },
  { key: 'fee', title: 'Fee', kind: 'decimal', wide: true },
  { key: 'price', title: 'Price (asset/share)', kind: 'decimal' },
  { key: 'currency', title: 'Currency', kind: 'text', wide: true },
  { key: 'price_in_currency', title: 'Price (currency/share)', kind: 'decimal', wide: true },
  { key: 'market_price', title: 'Market price at intent', kind: 'decimal', wide: true },
  { key: 'market_price_at', title: 'Market price read', kind: 'time', wide: true },
  { key: 'quoted_amount_out', title: 'Quoted out', kind: 'decimal', wide: true },
  { key: 'amount_out', title: 'Filled out', kind: 'decimal', wide: true },
  { key: 'slippage_vs_quote_bps', title: 'Slippage vs quote', kind: 'decimal', unit: 'bps', wide: true },
  { key: 'slippage_vs_market_bps', title: 'Slippage vs market', kind: 'decimal', unit: 'bps' },
  { key: 'tx_hash', title: 'Transaction', kind: 'text', wide: true },
]

/** The columns of the `slippage` table. */
const slippageColumns: readonly ReportColumn[] = [
  { key: 'chain_id', title: 'Chain', kind: 'integer' },
  { key: 'ticker', title: 'Ticker', kind: 'text' },
  { key: 'fills', title: 'Fills', kind: 'integer' },
  { key: 'avg_vs_quote_bps', title: 'Avg vs quote', kind: 'decimal', unit: 'bps' },
  { key: 'fills_with_market_price', title: 'With market price', kind: 'integer' },
  { key: 'avg_vs_market_bps', title: 'Avg vs market', kind: 'decimal', unit: 'bps' },
  { key: 'worst_vs_market_bps', title: 'Worst vs market', kind: 'decimal', unit: 'bps' },
]

/** A chain and token's slippage over the whole selection, summed from the ledger's daily figures. */
type SlippageGroup = {
  chainId: number
  tokenAddress: string
  ticker: string
  fills: number
  /** Sum of the fills' slippage (centi-bps) and how many fills have one. */
  quote: [bigint, number]
  market: [bigint, number]
  worst: number | null
}

/** How many fills the selection holds, and how many of them lack each slippage. */
type SlippageCounts = { total: number; withoutQuote: number; withoutMarketPrice: number }

/** What the fills report shows, as read from one ledger or merged from several. */
export type FillsData = {
  /** The newest `filter.limit` fills selected (all without a limit), oldest first. */
  rows: (FillReportRow & { ledger?: string | undefined })[]
  /** The whole selection's slippage per chain and token. */
  groups: SlippageGroup[]
}

/**
 * The `fills` report: live fills (reversed ones are left out), the newest `filter.limit` of the
 * selection shown oldest first, with each one's price per share in the asset and in the market's
 * currency (HKD, KRW, USD; converted at the FX rate), its fee, and its slippage in basis points
 * against its quote (the amount out the quote promised) and against the market price when its
 * intent was quoted (both computed when the fill was recorded: src/store/fillSlippageOf.ts). A
 * second table (`slippage`) averages both per chain and token over the whole selection, from the
 * ledger's daily figures. The filter selects fills by chain, ticker (current or former), the
 * strategy of their execution, and block time.
 *
 * @example
 * const report = fillsReport({ ledger, now: Date.now }, { ticker: 'AAPL', limit: 100 })
 * report.tables[0].rows[0].slippage_vs_quote_bps // '0'
 */
export function fillsReport(context: ReportContext, filter: ReportFilter): Report {
  return renderFills(collectFills(context, filter), context, filter)
}

/**
 * Reads the fills report's data from the ledger of `context`; with `ledger` (one of several), each
 * row names it.
 *
 * @example
 * collectFills({ ledger, now: Date.now }, { limit: 1000 }, 'shard-a.sqlite').rows.at(-1)?.ledger
 */
export function collectFills(context: ReportContext, filter: ReportFilter, ledger?: string): FillsData {
  const database = context.ledger.database
  const rows = selectFills(database, filter)
  return {
    rows: ledger === undefined ? rows : rows.map((row) => ({ ledger, ...row })),
    groups: slippageGroups(database, filter),
  }
}

/**
 * The fills data of several ledgers as one: the rows interleaved oldest first by block time (each
 * ledger's own order kept; the ledger given first first on a tie), the newest `filter.limit` kept;
 * the slippage of each chain and token summed (sums and counts added, the worst the worst).
 *
 * @example
 * mergeFills([a, b], {}).groups
 */
export function mergeFills(parts: readonly FillsData[], filter: ReportFilter): FillsData {
  const rows = interleave(
    parts.map((part) => part.rows),
    (a, b) => a.block_time < b.block_time,
  )
  const groups = new Map<string, SlippageGroup>()
  for (const part of parts)
    for (const group of part.groups) {
      const key = `${group.chainId}:${group.tokenAddress}`
      const into = groups.get(key)
      if (!into) {
        groups.set(key, { ...group })
        continue
      }
      into.fills += group.fills
      into.quote = [into.quote[0] + group.quote[0], into.quote[1] + group.quote[1]]
      into.market = [into.market[0] + group.market[0], into.market[1] + group.market[1]]
      if (group.worst !== null) into.worst = Math.max(into.worst ?? group.worst, group.worst)
      // A ledger that knows the token's position names its ticker; another may know only the address.
      if (into.ticker === into.tokenAddress) into.ticker = group.ticker
    }
  return {
    rows: filter.limit === undefined ? rows : rows.slice(Math.max(0, rows.length - filter.limit)),
    groups: [...groups.values()],
  }
}

/**
 * The fills report of its data; with `ledgers` (several read), the fills table names each row's
 * ledger first.
 *
 * @example
 * renderFills(mergeFills(parts, filter), context, filter, ['a.sqlite', 'b.sqlite'])
 */
export function renderFills(
  data: FillsData,
  context: ReportRenderContext,
  filter: ReportFilter,
  ledgers?: readonly string[],
): Report {
  const fxRates = context.fxRates ?? defaultFxRates
  const fills: Record<string, ReportValue>[] = data.rows.map((row) => ({
    ...(ledgers === undefined ? {} : { ledger: row.ledger ?? null }),
    ...fillCells(row, fxRates),
  }))
  const notes = fillsNotes(filter, data.rows.length, slippageCounts(data.groups))
  if (ledgers !== undefined)
    notes.push(
      "Several ledgers: the fills of every ledger are listed oldest first by block time (each ledger's in its own order), the fill and execution ids being the ledger's own (column Ledger); the slippage table sums every ledger's fills of each chain and token.",
    )
  return {
    name: 'fills',
    generatedAt: new Date(context.now()).toISOString(),
    filter,
    tables: [
      {
        key: 'fills',
        title: 'Fills, oldest first',
        columns: withLedgerColumn(fillColumns, ledgers),
        rows: fills,
      },
      {
        key: 'slippage',
        title: 'Slippage by chain and ticker',
        columns: slippageColumns,
        rows: slippageRows(data.groups),
      },
    ],
    notes,
  }
}

/** The fills report in three steps (src/report/acrossLedgers.ts). */
export const fillsKind: ReportKind<FillsData> = {
  collect: collectFills,
  merge: mergeFills,
  render: renderFills,
}

/**
 * The WHERE conditions and parameters of a filter on `fills f LEFT JOIN executions e`: live fills,
 * chain, ticker (current or former tokens), strategy of the execution, block time.
 */
function fillConditions(
  database: Database.Database,
  filter: ReportFilter,
): { conditions: string[]; params: Record<string, string | number> } {
  const conditions = ['f.reversed_at_ms IS NULL']
  const params: Record<string, string | number> = {}
  if (filter.chainId !== undefined) {
    conditions.push('f.chain_id = @chain_id')
    params.chain_id = filter.chainId
  }
  if (filter.ticker !== undefined) {
    const tokens = tokensOfTicker(database, filter.ticker)
    conditions.push(
      tokens.length === 0
        ? '0'
        : `(${tokens.map((_, index) => `(f.chain_id = @token_chain_${index} AND f.stock_token = @token_${index})`).join(' OR ')})`,
    )
    tokens.forEach((token, index) => {
      params[`token_chain_${index}`] = token.chain_id
      params[`token_${index}`] = token.token_address
    })
  }
  if (filter.strategy !== undefined) {
    conditions.push('e.strategy = @strategy')
    params.strategy = filter.strategy
  }
  // Block time is in seconds: t·1000 >= since ⟺ t >= ceil(since/1000); likewise for until.
  if (filter.sinceMs !== undefined) {
    conditions.push('f.block_time >= @since_s')
    params.since_s = Math.ceil(filter.sinceMs / 1000)
  }
  if (filter.untilMs !== undefined) {
    conditions.push('f.block_time < @until_s')
    params.until_s = Math.ceil(filter.untilMs / 1000)
  }
  return { conditions, params }
}

/** The newest `filter.limit` fills the filter selects (all without a limit), oldest first. */
function selectFills(database: Database.Database, filter: ReportFilter): FillReportRow[] {
  const { conditions, params } = fillConditions(database, filter)
  if (filter.limit !== undefined) params.limit = filter.limit
  return database
    .prepare<Record<string, string | number>, FillReportRow>(
      `SELECT f.id, f.chain_id, f.tx_hash, f.execution_id, f.quote_id, f.token_kind, f.asset_decimals, f.ticker,
              f.exchange, f.is_buy, f.amount_in, f.amount_out, f.fee_amount, f.block_time,
              f.slippage_vs_quote_cbps, f.slippage_vs_market_cbps,
              e.strategy, e.quote_json, e.market_price, e.market_price_at_ms
       FROM fills f LEFT JOIN executions e ON e.id = f.execution_id
       WHERE ${conditions.join(' AND ')}
       ORDER BY f.block_time DESC, f.id DESC${filter.limit === undefined ? '' : ' LIMIT @limit'}`,
    )
    .all(params)
    .reverse()
}

/** One fill as a row of the `fills` table: amounts in human units, prices, slippage in bps. */
function fillCells(row: FillReportRow, fxRates: FxRates): Record<string, ReportValue> {
  const exchange = isExchangeCode(row.exchange) ? row.exchange : undefined
  const fxRate = exchange === undefined ? undefined : fxRates[marketCodes[exchange]]
  const isBuy = row.is_buy === 1
  const amounts: FillAmounts = {
    isBuy,
    tokenKind: row.token_kind,
    assetDecimals: row.asset_decimals,
    assetAmount: BigInt(isBuy ? row.amount_in : row.amount_out),
    stockAmount: BigInt(isBuy ? row.amount_out : row.amount_in),
  }
  const tokenDecimals = row.token_kind === 'share' ? 18 : 0
  const priced = amounts.stockAmount > 0n
  const quoted = quotedAmountOut(row)
  const marketPrice = row.market_price === null ? undefined : BigInt(row.market_price)
  return {
    id: row.id,
    time: new Date(row.block_time * 1000).toISOString(),
    chain_id: row.chain_id,
    ticker: row.ticker,
    side: isBuy ? 'buy' : 'sell',
    execution_id: row.execution_id,
    strategy: row.strategy,
    quantity: formatAmount(amounts.stockAmount, tokenDecimals),
    asset_amount: formatAmount(amounts.assetAmount, row.asset_decimals),
    fee: formatAmount(BigInt(row.fee_amount), row.asset_decimals),
    price: priced ? formatAmount(fillPricePerShare(amounts), row.asset_decimals) : null,
    currency: exchange === undefined ? null : currencyOf[exchange],
    price_in_currency:
      priced && fxRate !== undefined
        ? formatAmount(fillPriceInMarketCurrency(amounts, fxRate), priceDecimals)
        : null,
    market_price: marketPrice === undefined ? null : formatAmount(marketPrice, priceDecimals),
    market_price_at: row.market_price_at_ms === null ? null : new Date(row.market_price_at_ms).toISOString(),
    quoted_amount_out:
      quoted === undefined ? null : formatAmount(quoted, isBuy ? tokenDecimals : row.asset_decimals),
    amount_out: formatAmount(BigInt(row.amount_out), isBuy ? tokenDecimals : row.asset_decimals),
    slippage_vs_quote_bps:
      row.slippage_vs_quote_cbps === null ? null : formatCentiBps(BigInt(row.slippage_vs_quote_cbps)),
    slippage_vs_market_bps:
      row.slippage_vs_market_cbps === null ? null : formatCentiBps(BigInt(row.slippage_vs_market_cbps)),
    tx_hash: row.tx_hash,
  }
}

/** The amount out the fill's quote promised, when its execution still holds that quote. */
function quotedAmountOut(row: FillReportRow): bigint | undefined {
  if (row.quote_json === null) return undefined
  const parsed = quotePartSchema.safeParse(JSON.parse(row.quote_json))
  if (!parsed.success || parsed.data.quoteId.toLowerCase() !== row.quote_id.toLowerCase()) return undefined
  return BigInt(parsed.data.amountOut)
}

/**
 * The whole selection's slippage per chain and token, from the daily figures (not from the rows
 * shown); corporate actions left out.
 */
function slippageGroups(database: Database.Database, filter: ReportFilter): SlippageGroup[] {
  const {
    sums: [byToken = []],
    positions,
  } = selectLedgerDays(database, filter, [{ token: true, strategy: true }])
  const tickers = new Map(
    positions.map((position) => [`${position.chainId}:${position.tokenAddress}`, position.ticker]),
  )
  const groups = new Map<string, SlippageGroup>()
  for (const sums of byToken) {
    if (sums.corporateAction) continue
    const key = `${sums.chainId}:${sums.tokenAddress}`
    const group = groups.get(key) ?? {
      chainId: sums.chainId,
      tokenAddress: sums.tokenAddress,
      ticker: tickers.get(key) ?? sums.tokenAddress,
      fills: 0,
      quote: [0n, 0],
      market: [0n, 0],
      worst: null,
    }
    group.fills += sums.buys + sums.sells
    group.quote = [group.quote[0] + sums.quoteSlippageCbps, group.quote[1] + sums.quoteSlippageFills]
    group.market = [group.market[0] + sums.marketSlippageCbps, group.market[1] + sums.marketSlippageFills]
    if (sums.worstMarketSlippageCbps !== null)
      group.worst = Math.max(group.worst ?? sums.worstMarketSlippageCbps, sums.worstMarketSlippageCbps)
    groups.set(key, group)
  }
  return [...groups.values()]
}

/** The fills of the selection, and how many have no slippage vs quote or vs market. */
function slippageCounts(groups: readonly SlippageGroup[]): SlippageCounts {
  const total = groups.reduce((sum, group) => sum + group.fills, 0)
  const withoutQuote = total - groups.reduce((sum, group) => sum + group.quote[1], 0)
  const withoutMarketPrice = total - groups.reduce((sum, group) => sum + group.market[1], 0)
  return { total, withoutQuote, withoutMarketPrice }
}

/** A mean slippage in bps (half away from zero), null when no fill has one. */
function meanBps([sum, count]: [bigint, number]): string | null {
  return count === 0 ? null : formatCentiBps(divideHalfAway(sum, BigInt(count)))
}

/** The rows of the `slippage` table, by chain then ticker. */
function slippageRows(groups: readonly SlippageGroup[]): Record<string, ReportValue>[] {
  return [...groups]
    .sort((a, b) => a.chainId - b.chainId || a.ticker.localeCompare(b.ticker))
    .map((group) => ({
      chain_id: group.chainId,
      ticker: group.ticker,
      fills: group.fills,
      avg_vs_quote_bps: meanBps(group.quote),
      fills_with_market_price: group.market[1],
      avg_vs_market_bps: meanBps(group.market),
      worst_vs_market_bps: group.worst === null ? null : formatCentiBps(BigInt(group.worst)),
    }))
}

/** The method notes, with how many rows the fills table shows and which slippage is missing. */
function fillsNotes(filter: ReportFilter, shown: number, counts: SlippageCounts): string[] {
  const { total, withoutQuote, withoutMarketPrice } = counts
  const notes = [
    'Fills are selected by block time (--since inclusive, --until exclusive), chain, ticker (a renamed token matches its former tickers) and the strategy of their execution; fills reversed by a reorg are left out.',
    'Price: asset per whole share, the asset side (fee included on a buy, net of it on a sell) over the quantity. Price in currency: the same in the market currency (USD, HKD, KRW) at the FX rate of the config (execution.fxRates, else the defaults: HKD 0.1285, KRW 0.00072).',
    "Slippage vs quote (bps): (quoted amount out − filled amount out) / quoted amount out × 10,000, against the execution's stored quote when the fill settled it. Positive: worse than quoted.",
    "Slippage vs market (bps): the fill's price against the market price the engine read when it quoted the intent (executions.market_price), converted at the FX rate the engine used then: above it on a buy, below it on a sell is positive (worse). It includes the fee and the spread.",
    'Basis points are rounded half away from zero to two decimals, per fill when it is recorded; the slippage table averages those of every selected fill of each chain and token.',
  ]
  if (filter.limit !== undefined && shown < total)
    notes.unshift(
      `The fills table shows the newest ${shown} of the ${total} fills selected (--all shows every one); the slippage table covers all ${total}.`,
    )
  if (withoutMarketPrice > 0)
    notes.push(
      `${withoutMarketPrice} fill(s) have no market price at intent (executions made before it was recorded, or fills not attributed to an execution): their slippage vs market is null.`,
    )
  if (withoutQuote > 0)
    notes.push(
      `${withoutQuote} fill(s) settled a quote their execution no longer holds (or have no execution): their slippage vs quote is null.`,
    )
  return notes
}
