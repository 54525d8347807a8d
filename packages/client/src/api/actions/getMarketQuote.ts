import { z } from 'zod'
import type { MarketCode } from '../../domain/markets.js'
import { parsePrice } from '../../domain/unitStrings.js'
import type { Price } from '../../domain/units.js'
import { decimalStringSchema } from '../schemas.js'
import type { CallOptions, ServiceClient } from '../serviceClient.js'

/**
 * A decimal price as the domain's {@link Price} (bigint scaled by 1e8), or null when the text cannot
 * be represented exactly (more than 8 decimal places, negative): the raw text is always kept beside.
 *
 * @example
 * priceOrNull('418.6') // 41860000000n
 * priceOrNull('0.000000001') // null
 */
export function priceOrNull(text: string): Price | null {
  try {
    return parsePrice(text)
  } catch {
    return null
  }
}

/** The reference's Market quote record, camelCased; prices also parsed to {@link Price}. */
export const marketQuoteSchema = z
  .object({
    symbol: z.string(),
    status: z.string(),
    close: decimalStringSchema,
    prev_close: decimalStringSchema,
    name: z.string(),
    market: z.string(),
    open: decimalStringSchema,
    high: decimalStringSchema,
    low: decimalStringSchema,
    volume: decimalStringSchema,
    turnover: decimalStringSchema,
  })
  .transform((quote) => ({
    symbol: quote.symbol,
    /** CryptoStatus; the reference shows only `normal`. */
    status: quote.status,
    name: quote.name,
    /** Market code (`usex`, `hkex`, `krex`). */
    market: quote.market,
    /** Prices in the market's currency, exactly as the service sent them. */
    close: quote.close,
    prevClose: quote.prev_close,
    open: quote.open,
    high: quote.high,
    low: quote.low,
    /** Traded quantity (shares) and traded amount (market currency), as sent. */
    volume: quote.volume,
    turnover: quote.turnover,
    /** The same prices as {@link Price}; null where the text has more than 8 decimals. */
    prices: {
      close: priceOrNull(quote.close),
      prevClose: priceOrNull(quote.prev_close),
      open: priceOrNull(quote.open),
      high: priceOrNull(quote.high),
      low: priceOrNull(quote.low),
    },
  }))

export type MarketQuote = z.output<typeof marketQuoteSchema>

export type GetMarketQuoteParameters = {
  symbol: string
  /** Optional; when given, the service checks it is the symbol's market. */
  market?: MarketCode
}

export type GetMarketQuoteReturnType = MarketQuote

/**
 * The current market quote of one stock (GET /market/v1/tickers/{symbol}/quote, institution key).
 * Symbols are stock tickers (`AAPL`, `0700`, `005930`), case-sensitive; ShareTokens have no quote.
 *
 * @example
 * const quote = await getMarketQuote(client, { symbol: '0700', market: 'hkex' })
 * quote.close // '418.6'
 * quote.prices.close // 41860000000n
 */
export function getMarketQuote(
  client: ServiceClient,
  parameters: GetMarketQuoteParameters,
  options?: CallOptions,
): Promise<GetMarketQuoteReturnType> {
  return client.request(
    {
      method: 'GET',
      path: `/market/v1/tickers/${encodeURIComponent(parameters.symbol)}/quote`,
      query: { market: parameters.market },
      auth: 'institution',
      schema: marketQuoteSchema,
    },
    options,
  )
}
