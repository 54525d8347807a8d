import { z } from 'zod'
import { StockrouteError } from '../../domain/errors.js'
import type { MarketCode } from '../../domain/markets.js'
import type { CallOptions, ServiceClient } from '../serviceClient.js'
import { type MarketQuote, marketQuoteSchema } from './getMarketQuote.js'

/** Most symbols the service accepts in one request (the reference's limit). */
export const maxSymbolsPerQuotesRequest = 30

const getMarketQuotesSchema = z.array(marketQuoteSchema)

export type GetMarketQuotesParameters = {
  /**
   * Stock symbols, all of `market` (the client cannot tell a symbol's market: a symbol of another
   * market is refused by the service). Any number: they are sent in requests of at most
   * `symbolsPerRequest`. Each symbol once: the service refuses a repeated symbol.
   */
  symbols: readonly string[]
  market: MarketCode
  /** Symbols per request, 1 to {@link maxSymbolsPerQuotesRequest} (the default). */
  symbolsPerRequest?: number
}

export type GetMarketQuotesReturnType = MarketQuote[]

/**
 * Market quotes of many stocks of one market (GET /market/v1/tickers/quotes, institution key). The
 * symbols are split into requests of at most 30 (the service's limit), sent concurrently through the
 * client's rate limiter; the batches' records are concatenated in the order of `symbols` (within a
 * batch, as the service lists them: the sandbox keeps the order asked). When one request fails, the
 * others are cancelled and the call rejects with that request's error. No symbols, no request.
 *
 * @example
 * const quotes = await getMarketQuotes(client, { symbols: ['0700', '9988'], market: 'hkex' })
 * quotes.map((quote) => [quote.symbol, quote.close]) // [['0700', '418.6'], ['9988', '84.15']]
 */
export async function getMarketQuotes(
  client: ServiceClient,
  parameters: GetMarketQuotesParameters,
  options: CallOptions = {},
): Promise<GetMarketQuotesReturnType> {
  const { symbols, market, symbolsPerRequest = maxSymbolsPerQuotesRequest } = parameters
  if (
    !Number.isInteger(symbolsPerRequest) ||
    symbolsPerRequest < 1 ||
    symbolsPerRequest > maxSymbolsPerQuotesRequest
  )
    throw invalid(
      `symbolsPerRequest ${symbolsPerRequest} is not valid: use a whole number from 1 to ${maxSymbolsPerQuotesRequest}`,
      { symbolsPerRequest },
    )
  const malformed = symbols.filter((symbol) => symbol.trim() === '' || symbol.includes(','))
  if (malformed.length > 0)
    throw invalid(
      `symbols ${malformed.map((symbol) => JSON.stringify(symbol)).join(', ')} cannot be sent: a symbol is a non-empty ticker without commas`,
      { symbols: malformed },
    )
  const batches: string[][] = []
  for (let start = 0; start < symbols.length; start += symbolsPerRequest)
    batches.push(symbols.slice(start, start + symbolsPerRequest))
  if (batches.length === 0) return []

  // One failed batch cancels the others: their results would be thrown away anyway.
  const cancel = new AbortController()
  const signal = options.signal ? AbortSignal.any([options.signal, cancel.signal]) : cancel.signal
  try {
    const replies = await Promise.all(
      batches.map((batch) =>
        client
          .request(
            {
              method: 'GET',
              path: '/market/v1/tickers/quotes',
              query: { symbols: batch.join(','), market },
              auth: 'institution',
              schema: getMarketQuotesSchema,
            },
            { ...options, signal },
          )
          .catch((error: unknown) => {
            cancel.abort(error)
            throw error
          }),
      ),
    )
    return replies.flat()
  } finally {
    cancel.abort()
  }
}

function invalid(shortMessage: string, details: Record<string, unknown>) {
  return new StockrouteError({ code: 'INVALID_PARAMETER', shortMessage, details })
}
