import { getMarketQuote } from '../api/actions/getMarketQuote.js'
import type { ServiceClient } from '../api/createServiceClient.js'
import type { Price } from '../domain/units.js'
import type { MarketPriceSource } from './context.js'
import { EngineError } from './errors.js'

/**
 * Market prices from the service's market quote: the `close` (last) price of the instrument's stock,
 * asked each time.
 *
 * @example
 * const price = await serviceMarketPrice(service)(instrument, {})
 */
export function serviceMarketPrice(service: ServiceClient): MarketPriceSource {
  return async (instrument, { signal }) => {
    const quote = await getMarketQuote(
      service,
      { symbol: instrument.marketSymbol, market: instrument.market },
      signal ? { signal } : {},
    )
    if (quote.prices.close === null)
      throw new EngineError({
        code: 'INVALID_INTENT',
        shortMessage: `The market price of ${instrument.marketSymbol} (${quote.close}) cannot be used: it has more than 8 decimals.`,
      })
    return quote.prices.close
  }
}

/**
 * A market price source that keeps each instrument's price for `maxAgeMs` and asks `source` only
 * when it is older; concurrent asks for one instrument share one request, and a failure is not kept.
 *
 * @example
 * const marketPrice = cachedMarketPrice(serviceMarketPrice(service), { maxAgeMs: 5_000 })
 */
export function cachedMarketPrice(
  source: MarketPriceSource,
  options: { maxAgeMs: number; now?: (() => number) | undefined },
): MarketPriceSource {
  const now = options.now ?? Date.now
  const prices = new Map<string, { price: Promise<Price>; atMs: number }>()
  return (instrument, callOptions) => {
    const key = `${instrument.market}:${instrument.marketSymbol}`
    const cached = prices.get(key)
    if (cached && now() - cached.atMs <= options.maxAgeMs) return cached.price
    const entry = { price: source(instrument, callOptions), atMs: now() }
    prices.set(key, entry)
    entry.price.catch(() => {
      if (prices.get(key) === entry) prices.delete(key)
    })
    return entry.price
  }
}
