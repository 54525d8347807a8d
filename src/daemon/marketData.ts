import { getMarketQuotes } from '@stockroute/client/api/actions/getMarketQuotes.js'
import type { ServiceClient } from '@stockroute/client/api/createServiceClient.js'
import type { MarketCode } from '@stockroute/client/domain/markets.js'
import {
  createMarketStatusBook,
  type MarketPriceSource,
  type MarketStatusSource,
  serviceMarketPrice,
} from '../engine/index.js'
import { type MarketPrice, type MarketSymbol, priceKey } from '../strategy/index.js'

export type MarketDataCacheParameters = {
  service: ServiceClient
  /** A price older than this is stale: strategies ignore it and the engine fetches a fresh one. */
  staleAfterMs: number
  now?: (() => number) | undefined
}

/** The daemon's prices: the latest market quote of each stock, with its age. */
export type MarketDataCache = {
  /** Polls every symbol once: one request per market and 30 symbols. Failed markets keep their old (ageing) prices. */
  poll(symbols: readonly MarketSymbol[], options?: { signal?: AbortSignal | undefined }): Promise<PollResult>
  /** Every price, stale ones marked `stale`. */
  snapshot(): ReadonlyMap<string, MarketPrice>
  /**
   * For the engine's guard: the cached price while fresh, else a fresh quote from the service
   * (cached in turn). A stale price is never handed out.
   */
  priceSource: MarketPriceSource
  /** The status of each stock's latest market quote (polled or fetched), for the engine's guard: buys stop unless `normal`. */
  marketStatus: MarketStatusSource
}

export type PollResult = {
  /** Prices received. */
  updated: number
  /** Markets whose request failed, with why. */
  failed: { market: MarketCode; error: string }[]
}

/**
 * The market-data cache the daemon's poller fills: `poll` asks the service for every symbol the
 * strategies need, batched at most 30 per request and per market (getMarketQuotes), and stamps each
 * price with the time it arrived. A price older than `staleAfterMs` is reported stale and never
 * traded on.
 *
 * @example
 * const prices = createMarketDataCache({ service, staleAfterMs: 10_000 })
 * await prices.poll([{ market: 'usex', symbol: 'AAPL' }, { market: 'hkex', symbol: '0700' }])
 * prices.snapshot().get('hkex:0700')?.stale // false
 */
export function createMarketDataCache(parameters: MarketDataCacheParameters): MarketDataCache {
  const { service, staleAfterMs, now = Date.now } = parameters
  const statuses = createMarketStatusBook({ now })
  const fetchLive = serviceMarketPrice(service, statuses)
  const prices = new Map<string, Omit<MarketPrice, 'stale'>>()
  const store = (market: MarketCode, symbol: string, close: MarketPrice['price'] | null) => {
    if (close === null) return false
    prices.set(priceKey(market, symbol), { market, symbol, price: close, atMs: now() })
    return true
  }

  return {
    async poll(symbols, options = {}) {
      const byMarket = new Map<MarketCode, Set<string>>()
      for (const { market, symbol } of symbols) {
        const set = byMarket.get(market) ?? new Set<string>()
        set.add(symbol)
        byMarket.set(market, set)
      }
      const result: PollResult = { updated: 0, failed: [] }
      await Promise.all(
        [...byMarket].map(async ([market, set]) => {
          try {
            const quotes = await getMarketQuotes(
              service,
              { market, symbols: [...set] },
              signalOf(options.signal),
            )
            for (const quote of quotes) {
              statuses.record(market, quote.symbol, quote.status)
              if (store(market, quote.symbol, quote.prices.close)) result.updated += 1
            }
          } catch (error) {
            result.failed.push({ market, error: error instanceof Error ? error.message : String(error) })
          }
        }),
      )
      return result
    },
    snapshot() {
      const at = now()
      return new Map(
        [...prices].map(([key, price]) => [key, { ...price, stale: at - price.atMs > staleAfterMs }]),
      )
    },
    async priceSource(instrument, options) {
      const key = priceKey(instrument.market, instrument.marketSymbol)
      const cached = prices.get(key)
      if (cached && now() - cached.atMs <= staleAfterMs) return cached.price
      const fresh = await fetchLive(instrument, options)
      store(instrument.market, instrument.marketSymbol, fresh)
      return fresh
    },
    marketStatus: statuses.latest,
  }
}

function signalOf(signal: AbortSignal | undefined) {
  return signal ? { signal } : {}
}
