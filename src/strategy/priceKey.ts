import type { MarketCode } from '@stockroute/client/domain/markets.js'

/**
 * The key of a stock's price in {@link StrategyInput.prices}: market and symbol, e.g. `hkex:0700`.
 * The symbol is the stock's ticker on the market (a ShareToken's price is its stock's).
 *
 * @example
 * priceKey('usex', 'AAPL') // 'usex:AAPL'
 * new Map([[priceKey('hkex', '0700'), price]])
 */
export function priceKey(market: MarketCode, symbol: string): string {
  return `${market}:${symbol}`
}
