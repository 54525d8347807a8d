import type { MarketCode } from '@stockroute/client/domain/markets.js'
import type { Instrument } from './types.js'

/** The `status` of an instrument's latest market quote (the reference shows only `normal`), and when it was read. */
export type MarketQuoteStatus = { status: string; atMs: number }

/** The latest market quote status known for an instrument; undefined when none was read. */
export type MarketStatusSource = (
  instrument: Pick<Instrument, 'market' | 'marketSymbol'>,
) => MarketQuoteStatus | undefined

/** Where the market-price sources write each quote's status, and the guard reads it. */
export type MarketStatusBook = {
  record(market: MarketCode, symbol: string, status: string): void
  latest: MarketStatusSource
}

/**
 * The latest market quote status of each stock, as written by whoever reads market quotes (the
 * engine's own price source, the daemon's market-data cache). A buy on a stock whose latest status
 * is not `normal` is refused by the guard (rule `market-status`); sells are not.
 *
 * @example
 * const statuses = createMarketStatusBook()
 * statuses.record('hkex', '0700', 'halted')
 * statuses.latest({ market: 'hkex', marketSymbol: '0700' }) // { status: 'halted', atMs: … }
 */
export function createMarketStatusBook(options: { now?: (() => number) | undefined } = {}): MarketStatusBook {
  const now = options.now ?? Date.now
  const statuses = new Map<string, MarketQuoteStatus>()
  return {
    record(market, symbol, status) {
      statuses.set(`${market}:${symbol}`, { status, atMs: now() })
    },
    latest: (instrument) => statuses.get(`${instrument.market}:${instrument.marketSymbol}`),
  }
}

/** The status every market quote should have; anything else stops new entries. */
export const normalMarketStatus = 'normal'
