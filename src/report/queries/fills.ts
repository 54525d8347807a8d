import { z } from 'zod'
import { type ExchangeCode, isExchangeCode, marketCodes } from '../../domain/markets.js'
import { defaultFxRates } from '../../domain/quotePrice.js'
import { priceDecimals } from '../../domain/units.js'
import { formatAmount } from '../formatAmount.js'
import type { Report, ReportContext, ReportFilter, ReportValue } from '../types.js'
import {
  divideHalfAway,
  type FillAmounts,
  fillPriceInMarketCurrency,
  fillPricePerShare,
  formatCentiBps,
  slippageVsMarketCentiBps,
  slippageVsQuoteCentiBps,
} from './fillSlippage.js'

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

/** Per (chain, ticker): counts and sums of slippage in hundredths of a basis point. */
type SlippageGroup = {
  chainId: number
  ticker: string
  fills: number
  vsQuote: bigint[]
  vsMarket: bigint[]
}

/**
 * The `fills` report: every live fill (reversed ones are left out), oldest first, with its price
 * per share in the asset and in the market's currency (HKD, KRW, USD; converted at the FX rate),
 * its fee, and its slippage in basis points against its quote (the amount out the quote promised,
 * `executions.quote_json`) and against the market price when its intent was quoted
 * (`executions.market_price`, null for executions made before it was recorded). A second table
 * (`slippage`) averages both per chain and ticker. The filter selects fills by chain, ticker, the
 * strategy of their execution, and block time.
 *
 * @example
 * const report = fillsReport({ ledger, now: Date.now }, { ticker: 'AAPL' })
 * report.tables[0].rows[0].slippage_vs_quote_bps // '0'
 */
export function fillsReport(context: ReportContext, filter: ReportFilter): Report {
  const fxRates = context.fxRates ?? defaultFxRates
  const rows = context.ledger.database
    .prepare<Record<string, string | number | null>, FillReportRow>(
      `SELECT f.id, f.chain_id, f.tx_hash, f.execution_id, f.quote_id, f.token_kind, f.asset_decimals, f.ticker,
              f.exchange, f.is_buy, f.amount_in, f.amount_out, f.fee_amount, f.block_time,
              e.strategy, e.quote_json, e.market_price, e.market_price_at_ms
       FROM fills f LEFT JOIN executions e ON e.id = f.execution_id
       WHERE f.reversed_at_ms IS NULL
         AND (@chain_id IS NULL OR f.chain_id = @chain_id)
         AND (@ticker IS NULL OR f.ticker = @ticker)
         AND (@strategy IS NULL OR e.strategy = @strategy)
         AND (@since_ms IS NULL OR f.block_time * 1000 >= @since_ms)
         AND (@until_ms IS NULL OR f.block_time * 1000 < @until_ms)
       ORDER BY f.block_time, f.id`,
    )
    .all({
      chain_id: filter.chainId ?? null,
      ticker: filter.ticker ?? null,
      strategy: filter.strategy ?? null,
      since_ms: filter.sinceMs ?? null,
      until_ms: filter.untilMs ?? null,
    })
  const groups = new Map<string, SlippageGroup>()
  let withoutMarketPrice = 0
  let withoutQuote = 0
  const fills: Record<string, ReportValue>[] = rows.map((row) => {
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
    const vsQuote =
      quoted === undefined || quoted <= 0n
        ? undefined
        : slippageVsQuoteCentiBps({ filledOut: BigInt(row.amount_out), quotedOut: quoted })
    const marketPrice = row.market_price === null ? undefined : BigInt(row.market_price)
    const vsMarket =
      marketPrice !== undefined && marketPrice > 0n && fxRate !== undefined && priced
        ? slippageVsMarketCentiBps(amounts, marketPrice, fxRate)
        : undefined
    if (quoted === undefined) withoutQuote += 1
    if (marketPrice === undefined) withoutMarketPrice += 1
    const groupKey = `${row.chain_id}\u0000${row.ticker}`
    const group = groups.get(groupKey) ?? {
      chainId: row.chain_id,
      ticker: row.ticker,
      fills: 0,
      vsQuote: [],
      vsMarket: [],
    }
    group.fills += 1
    if (vsQuote !== undefined) group.vsQuote.push(vsQuote)
    if (vsMarket !== undefined) group.vsMarket.push(vsMarket)
    groups.set(groupKey, group)
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
      market_price_at:
        row.market_price_at_ms === null ? null : new Date(row.market_price_at_ms).toISOString(),
      quoted_amount_out:
        quoted === undefined ? null : formatAmount(quoted, isBuy ? tokenDecimals : row.asset_decimals),
      amount_out: formatAmount(BigInt(row.amount_out), isBuy ? tokenDecimals : row.asset_decimals),
      slippage_vs_quote_bps: vsQuote === undefined ? null : formatCentiBps(vsQuote),
      slippage_vs_market_bps: vsMarket === undefined ? null : formatCentiBps(vsMarket),
      tx_hash: row.tx_hash,
    }
  })
  const mean = (values: readonly bigint[]) =>
    values.length === 0
      ? null
      : formatCentiBps(
          divideHalfAway(
            values.reduce((sum, value) => sum + value, 0n),
            BigInt(values.length),
          ),
        )
  const worst = (values: readonly bigint[]) => {
    const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    const last = sorted.at(-1)
    return last === undefined ? null : formatCentiBps(last)
  }
  const notes = [
    'Fills are selected by block time (--since inclusive, --until exclusive), chain, ticker and the strategy of their execution; fills reversed by a reorg are left out.',
    'Price: asset per whole share, the asset side (fee included on a buy, net of it on a sell) over the quantity. Price in currency: the same in the market currency (USD, HKD, KRW) at the FX rate the engine uses (config execution.fxRates, else its defaults: HKD 0.1285, KRW 0.00072).',
    "Slippage vs quote (bps): (quoted amount out − filled amount out) / quoted amount out × 10,000, against the execution's stored quote when the fill settled it. Positive: worse than quoted.",
    'Slippage vs market (bps): the price in the market currency against the market price the engine read when it quoted the intent (executions.market_price): above it on a buy, below it on a sell is positive (worse). It includes the fee and the spread.',
    'Basis points are rounded half away from zero to two decimals; the slippage table averages the fills of each chain and ticker.',
  ]
  if (withoutMarketPrice > 0)
    notes.push(
      `${withoutMarketPrice} fill(s) have no market price at intent (executions made before it was recorded, or fills not attributed to an execution): their slippage vs market is null.`,
    )
  if (withoutQuote > 0)
    notes.push(
      `${withoutQuote} fill(s) settled a quote their execution no longer holds (or have no execution): their slippage vs quote is null.`,
    )
  return {
    name: 'fills',
    generatedAt: new Date(context.now()).toISOString(),
    filter,
    tables: [
      {
        key: 'fills',
        title: 'Fills, oldest first',
        columns: [
          { key: 'id', title: 'Fill', kind: 'integer' },
          { key: 'time', title: 'Block time', kind: 'time' },
          { key: 'chain_id', title: 'Chain', kind: 'integer' },
          { key: 'ticker', title: 'Ticker', kind: 'text' },
          { key: 'side', title: 'Side', kind: 'text' },
          { key: 'execution_id', title: 'Execution', kind: 'integer' },
          { key: 'strategy', title: 'Strategy', kind: 'text' },
          { key: 'quantity', title: 'Quantity', kind: 'decimal', unit: 'shares' },
          { key: 'asset_amount', title: 'Asset amount', kind: 'decimal' },
          { key: 'fee', title: 'Fee', kind: 'decimal' },
          { key: 'price', title: 'Price (asset/share)', kind: 'decimal' },
          { key: 'currency', title: 'Currency', kind: 'text' },
          { key: 'price_in_currency', title: 'Price (currency/share)', kind: 'decimal' },
          { key: 'market_price', title: 'Market price at intent', kind: 'decimal' },
          { key: 'market_price_at', title: 'Market price read', kind: 'time' },
          { key: 'quoted_amount_out', title: 'Quoted out', kind: 'decimal' },
          { key: 'amount_out', title: 'Filled out', kind: 'decimal' },
          { key: 'slippage_vs_quote_bps', title: 'Slippage vs quote', kind: 'decimal', unit: 'bps' },
          { key: 'slippage_vs_market_bps', title: 'Slippage vs market', kind: 'decimal', unit: 'bps' },
          { key: 'tx_hash', title: 'Transaction', kind: 'text' },
        ],
        rows: fills,
      },
      {
        key: 'slippage',
        title: 'Slippage by chain and ticker',
        columns: [
          { key: 'chain_id', title: 'Chain', kind: 'integer' },
          { key: 'ticker', title: 'Ticker', kind: 'text' },
          { key: 'fills', title: 'Fills', kind: 'integer' },
          { key: 'avg_vs_quote_bps', title: 'Avg vs quote', kind: 'decimal', unit: 'bps' },
          { key: 'fills_with_market_price', title: 'With market price', kind: 'integer' },
          { key: 'avg_vs_market_bps', title: 'Avg vs market', kind: 'decimal', unit: 'bps' },
          { key: 'worst_vs_market_bps', title: 'Worst vs market', kind: 'decimal', unit: 'bps' },
        ],
        rows: [...groups.values()]
          .sort((a, b) => a.chainId - b.chainId || a.ticker.localeCompare(b.ticker))
          .map((group) => ({
            chain_id: group.chainId,
            ticker: group.ticker,
            fills: group.fills,
            avg_vs_quote_bps: mean(group.vsQuote),
            fills_with_market_price: group.vsMarket.length,
            avg_vs_market_bps: mean(group.vsMarket),
            worst_vs_market_bps: worst(group.vsMarket),
          })),
      },
    ],
    notes,
  }
}

/** The amount out the fill's quote promised, when its execution still holds that quote. */
function quotedAmountOut(row: FillReportRow): bigint | undefined {
  if (row.quote_json === null) return undefined
  const parsed = quotePartSchema.safeParse(JSON.parse(row.quote_json))
  if (!parsed.success || parsed.data.quoteId.toLowerCase() !== row.quote_id.toLowerCase()) return undefined
  return BigInt(parsed.data.amountOut)
}
