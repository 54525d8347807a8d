import { z } from 'zod'
import type { MarketCode } from '../../domain/markets.js'
import { decimalStringSchema } from '../schemas.js'
import type { CallOptions, ServiceClient } from '../serviceClient.js'
import { lotSizeSchema } from './getChainTokens.js'
import { priceOrNull } from './getMarketQuote.js'

// The reference names only lot_size and spread_table_code; every other field is what the sandbox
// sends (docs/sandbox.md, "Market data"), optional here so that a service sending fewer still parses.
const getTickerInfoSchema = z
  .object({
    lot_size: lotSizeSchema,
    spread_table_code: z.string().min(1),
    symbol: z.string().optional(),
    stock_code: z.string().nullish(),
    name: z.string().nullish(),
    market: z.string().nullish(),
    exchange: z.number().int().nullish(),
    exchange_name: z.string().nullish(),
    currency: z.string().nullish(),
    last_price: decimalStringSchema.nullish(),
    tick_size: decimalStringSchema.nullish(),
    share_symbol: z.string().nullish(),
  })
  .transform((info) => ({
    symbol: info.symbol,
    /** Board lot in whole shares: HK orders are multiples of it; 1 for KR and US. */
    lotSize: info.lot_size,
    /** Names the market's spread table (see getSpreadTables) that gives the tick at a price. */
    spreadTableCode: info.spread_table_code,
    stockCode: info.stock_code ?? null,
    name: info.name ?? null,
    market: info.market ?? null,
    exchange: info.exchange ?? null,
    exchangeName: info.exchange_name ?? null,
    currency: info.currency ?? null,
    /** Last price as sent, and as a domain `Price` (null when absent or not exact to 8 decimals). */
    lastPrice: info.last_price ?? null,
    lastPriceValue: info.last_price == null ? null : priceOrNull(info.last_price),
    /** The tick at `lastPrice` as sent; compute ticks at other prices with the domain's tickSize. */
    tickSize: info.tick_size ?? null,
    tickSizeValue: info.tick_size == null ? null : priceOrNull(info.tick_size),
    /** The ShareToken ticker of this stock, or null when it has none. */
    shareSymbol: info.share_symbol ?? null,
  }))

export type GetTickerInfoParameters = {
  symbol: string
  /** The symbol's market (required: the service checks it). */
  market: MarketCode
}

export type GetTickerInfoReturnType = Omit<z.output<typeof getTickerInfoSchema>, 'symbol'> & {
  symbol: string
}

/**
 * A stock's basic information, notably its board lot and spread table code (GET
 * /market/v1/tickers/{symbol}/info, API key + signature). Fields the reference does not show are
 * null when the service leaves them out; `symbol` falls back to the one asked for.
 *
 * @example
 * const info = await getTickerInfo(client, { symbol: '0700', market: 'hkex' })
 * info.lotSize // 100n
 * tickSize({ market: 'hkex', spreadTableCode: info.spreadTableCode, price: parsePrice('418.6') }) // 0.2
 */
export async function getTickerInfo(
  client: ServiceClient,
  parameters: GetTickerInfoParameters,
  options?: CallOptions,
): Promise<GetTickerInfoReturnType> {
  const info = await client.request(
    {
      method: 'GET',
      path: `/market/v1/tickers/${encodeURIComponent(parameters.symbol)}/info`,
      query: { market: parameters.market },
      auth: 'institution',
      schema: getTickerInfoSchema,
    },
    options,
  )
  return { ...info, symbol: info.symbol ?? parameters.symbol }
}
