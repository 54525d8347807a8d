import { getMarketQuote } from '@stockroute/client/api/actions/getMarketQuote.js'
import type { ServiceClient } from '@stockroute/client/api/createServiceClient.js'
import type { Price } from '@stockroute/client/domain/units.js'
import type { MarketPriceSource } from './context.js'
import { EngineError } from './errors.js'
import type { MarketStatusBook } from './marketStatus.js'
import type { Instrument } from './types.js'

/**
 * Market prices from the service's market quote: the `close` (last) price of the instrument's stock,
 * asked each time. With `statuses`, each quote's `status` is written there too (the guard refuses
 * buys while it is not `normal`).
 *
 * @example
 * const price = await serviceMarketPrice(service)(instrument, {})
 */
export function serviceMarketPrice(
  service: ServiceClient,
  statuses?: Pick<MarketStatusBook, 'record'>,
): MarketPriceSource {
  return async (instrument, { signal }) => {
    const quote = await getMarketQuote(
      service,
      { symbol: instrument.marketSymbol, market: instrument.market },
      signal ? { signal } : {},
    )
    statuses?.record(instrument.market, instrument.marketSymbol, quote.status)
    if (quote.prices.close === null)
      throw new EngineError({
        code: 'INVALID_INTENT',
        shortMessage: `The market price of ${instrument.marketSymbol} (${quote.close}) cannot be used: it has more than 8 decimals.`,
        remedy: 'try again later; if the service keeps sending such prices, report it to the service',
      })
    return quote.prices.close
  }
}

/**
 * A market price source that keeps each instrument's price for `maxAgeMs` and asks `source` only
 * when it is older; concurrent asks for one instrument share one request, and a failure is not kept.
 * From `refreshAfterMs` (default four fifths of `maxAgeMs`) an ask still gets the kept price and
 * starts one request for the next in the background, so that a steady flow of executions never
 * waits for a price beside its router quote: only the first ask, or one after a quiet spell longer
 * than `maxAgeMs`, does. A background request that fails leaves the kept price to its age.
 *
 * @example
 * const marketPrice = cachedMarketPrice(serviceMarketPrice(service), { maxAgeMs: 5_000 })
 */
export function cachedMarketPrice(
  source: MarketPriceSource,
  options: { maxAgeMs: number; refreshAfterMs?: number | undefined; now?: (() => number) | undefined },
): MarketPriceSource {
  const now = options.now ?? Date.now
  const refreshAfterMs = options.refreshAfterMs ?? Math.floor((options.maxAgeMs * 4) / 5)
  type Entry = { price: Promise<Price>; atMs: number; refreshing: boolean }
  const prices = new Map<string, Entry>()
  const ask = (key: string, instrument: Instrument, callOptions: Parameters<MarketPriceSource>[1]) => {
    const entry: Entry = { price: source(instrument, callOptions), atMs: now(), refreshing: false }
    entry.price.catch(() => {
      if (prices.get(key) === entry) prices.delete(key)
    })
    return entry
  }
  return (instrument, callOptions) => {
    const key = `${instrument.market}:${instrument.marketSymbol}`
    const cached = prices.get(key)
    const age = cached ? now() - cached.atMs : Number.POSITIVE_INFINITY
    if (cached && age <= options.maxAgeMs) {
      if (age >= refreshAfterMs && !cached.refreshing) {
        cached.refreshing = true
        // No caller's signal: the request serves whoever asks next, not this caller.
        const next = ask(key, instrument, {})
        next.price.then(
          () => {
            if (prices.get(key) === cached) prices.set(key, next)
          },
          () => {
            cached.refreshing = false
          },
        )
      }
      return cached.price
    }
    const entry = ask(key, instrument, callOptions)
    prices.set(key, entry)
    return entry.price
  }
}
