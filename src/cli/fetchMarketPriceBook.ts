import type { ServiceClient } from '@stockroute/client/api/createServiceClient.js'
import { isExchangeCode, marketCodes } from '@stockroute/client/domain/markets.js'
import type { MarketPriceBook } from '../report/types.js'

/** What the report prices open positions at, and why. */
export type PriceSource = { book: MarketPriceBook | undefined; note: string }

/**
 * The service's latest market price (`close`) of each open position's stock, for a report's
 * unrealized PnL, within `budgetMs`. Offline (undefined book, the note says why) for an embedded
 * sandbox that is not running (its service lives only inside the daemon), without the service's
 * key, or when the service does not answer in time: the reports then price at the last fill, marked as such.
 *
 * @example
 * const { book, note } = await fetchMarketPriceBook('stockroute.json', [{ exchange: 1, ticker: '0700' }], 3_000)
 */
export async function fetchMarketPriceBook(
  configPath: string,
  positions: readonly { exchange: number; ticker: string }[],
  budgetMs: number,
): Promise<PriceSource> {
  if (positions.length === 0) return { book: undefined, note: 'no open position to price' }
  // The service client loads only here: a report of an offline ledger never needs it. An embedded
  // config reaches its sandbox while the daemon runs it; otherwise the error is the note.
  const [{ serviceClientFromConfig }, { getMarketQuotes }] = await Promise.all([
    import('./serviceClient.js'),
    import('@stockroute/client/api/actions/getMarketQuotes.js'),
  ])
  let client: ServiceClient
  try {
    client = serviceClientFromConfig(configPath).client
  } catch (error) {
    return {
      book: undefined,
      note: `prices offline (${(error as Error).message.split('\n')[0]}); open positions at their last fill`,
    }
  }
  const byMarket = new Map<number, Set<string>>()
  for (const { exchange, ticker } of positions) {
    if (!isExchangeCode(exchange)) continue
    const tickers = byMarket.get(exchange) ?? new Set<string>()
    tickers.add(ticker)
    byMarket.set(exchange, tickers)
  }
  const book = new Map<string, { price: string; currency: string; atMs: number }>()
  const currencies: Record<number, string> = { 0: 'USD', 1: 'HKD', 3: 'KRW' }
  try {
    await Promise.all(
      [...byMarket].map(async ([exchange, tickers]) => {
        if (!isExchangeCode(exchange)) return
        const quotes = await getMarketQuotes(
          client,
          { symbols: [...tickers], market: marketCodes[exchange] },
          { budgetMs },
        )
        const atMs = Date.now()
        for (const quote of quotes)
          book.set(`${exchange}:${quote.symbol}`, {
            price: quote.close,
            currency: currencies[exchange] ?? '',
            atMs,
          })
      }),
    )
  } catch (error) {
    return {
      book: undefined,
      note: `prices offline (the service: ${(error as Error).message.split('\n')[0]}); open positions at their last fill`,
    }
  }
  return { book, note: `prices: the service's latest market quotes, read ${new Date().toISOString()}` }
}
