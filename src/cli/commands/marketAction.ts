import type { MarketQuote } from '@stockroute/client/api/actions/getMarketQuote.js'
import { getMarketQuotes } from '@stockroute/client/api/actions/getMarketQuotes.js'
import { getSpreadTables } from '@stockroute/client/api/actions/getSpreadTables.js'
import { getTickerInfo } from '@stockroute/client/api/actions/getTickerInfo.js'
import type { ServiceClient } from '@stockroute/client/api/createServiceClient.js'
import { StockrouteError } from '@stockroute/client/domain/errors.js'
import type { MarketCode } from '@stockroute/client/domain/markets.js'
import {
  type SpreadTableMarket,
  type SpreadTables,
  spreadTablesByMarket,
} from '@stockroute/client/domain/spreadTables.js'
import { tickSize } from '@stockroute/client/domain/tickRules.js'
import { formatPrice } from '@stockroute/client/domain/unitStrings.js'
import { formatTable } from '../formatTable.js'
import { withInterrupt } from '../interrupt.js'
import { printResult } from '../printResult.js'
import { serviceClientFromConfig } from '../serviceClient.js'

type MarketOptions = {
  config: string
  json?: boolean
  market: MarketCode
  symbols: string[]
  info?: boolean
}

/** One line of output: the quote as the service sent it, and with --info the ticker's rules. */
export type MarketRow = {
  symbol: string
  name: string
  market: string
  status: string
  close: string
  prevClose: string
  open: string
  high: string
  low: string
  volume: string
  turnover: string
  /** With --info: board lot, spread table and the tick at the close price (null when unknown). */
  lotSize?: string
  spreadTableCode?: string
  tickSize?: string | null
}

/**
 * What `stockroute market` runs (its options: ./marketCommand.ts): the quotes, with --info each
 * stock's lot, spread table and tick.
 */
export async function showMarketQuotes(options: MarketOptions) {
  const { market } = options
  if (options.info && market !== 'hkex' && market !== 'krex')
    throw new StockrouteError({
      code: 'INVALID_OPTIONS',
      shortMessage: `--info applies to hkex and krex (lots and price bands); ${market} stocks trade in lots of 1 at a tick of 0.01`,
      remedy: `leave out --info for ${market}`,
    })
  const { client } = serviceClientFromConfig(options.config)
  const rows = await withInterrupt(async (signal) => {
    const quotes = await getMarketQuotes(client, { symbols: options.symbols, market }, { signal })
    if (!options.info || market === 'usex') return quotes.map(rowOf)
    return withRules(client, market, quotes, signal)
  })
  printResult(options.json, rows, () => renderRows(rows, options.info === true))
}

function rowOf(quote: MarketQuote): MarketRow {
  const { prices: _prices, ...row } = quote
  return row
}

/** Adds each stock's lot and spread table (ticker info) and the tick at its close (spread tables). */
async function withRules(
  client: ServiceClient,
  market: SpreadTableMarket,
  quotes: readonly MarketQuote[],
  signal: AbortSignal,
): Promise<MarketRow[]> {
  const [tables, infos] = await Promise.all([
    getSpreadTables(client, { market }, { signal }),
    Promise.all(quotes.map((quote) => getTickerInfo(client, { symbol: quote.symbol, market }, { signal }))),
  ])
  return quotes.map((quote, index) => {
    const info = infos[index]
    if (!info) throw new Error(`no ticker info for ${quote.symbol}`)
    return {
      ...rowOf(quote),
      lotSize: String(info.lotSize),
      spreadTableCode: info.spreadTableCode,
      tickSize: tickAt(market, info.spreadTableCode, quote, { ...spreadTablesByMarket, [market]: tables }),
    }
  })
}

function tickAt(
  market: SpreadTableMarket,
  spreadTableCode: string,
  quote: MarketQuote,
  tables: SpreadTables,
): string | null {
  const price = quote.prices.close
  if (price === null) return null
  try {
    return formatPrice(tickSize({ market, spreadTableCode, price, tables }))
  } catch {
    // A close outside the tables, or a table the service does not serve: no tick to show.
    return null
  }
}

function renderRows(rows: readonly MarketRow[], info: boolean): string {
  const columns = [
    { header: 'SYMBOL' },
    { header: 'NAME' },
    { header: 'CLOSE', align: 'right' as const },
    { header: 'CHANGE', align: 'right' as const },
    { header: 'OPEN', align: 'right' as const },
    { header: 'HIGH', align: 'right' as const },
    { header: 'LOW', align: 'right' as const },
    { header: 'VOLUME', align: 'right' as const },
    { header: 'TURNOVER', align: 'right' as const },
    ...(info
      ? [
          { header: 'LOT', align: 'right' as const },
          { header: 'TABLE' },
          { header: 'TICK', align: 'right' as const },
        ]
      : []),
  ]
  return formatTable(
    columns,
    rows.map((row) => [
      row.symbol,
      row.name,
      row.close,
      changePercent(row.close, row.prevClose),
      row.open,
      row.high,
      row.low,
      row.volume,
      row.turnover,
      ...(info ? [row.lotSize ?? '-', row.spreadTableCode ?? '-', row.tickSize ?? '-'] : []),
    ]),
  )
}

/** (close − previous close) / previous close, in percent to 2 places, computed exactly. */
function changePercent(close: string, prevClose: string): string {
  const scale = (text: string) => {
    const [whole = '0', fraction = ''] = text.split('.')
    return BigInt(whole + fraction.padEnd(18, '0').slice(0, 18))
  }
  if (close.startsWith('-') || prevClose.startsWith('-')) return '-'
  const previous = scale(prevClose)
  if (previous === 0n) return '-'
  const basisPoints = ((scale(close) - previous) * 10_000n) / previous
  const sign = basisPoints < 0n ? '-' : '+'
  const magnitude = basisPoints < 0n ? -basisPoints : basisPoints
  return `${sign}${magnitude / 100n}.${String(magnitude % 100n).padStart(2, '0')}%`
}
