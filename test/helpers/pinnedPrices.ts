import type { PriceSimulator } from '@stockroute/sandbox/service/contextTypes.js'

// Prices a test can work its figures out from by hand. The sandbox's simulated market moves with
// the clock, so a test that reads its prices back from the simulator to compute what to expect
// ends up re-running the production formulas; with these, the prices are known constants instead.

/**
 * Holds a sandbox's simulated market at its opening: every price (the last price the router quote
 * and statistics read, and the market quote the engine's guard reads) is asked at time 0, which the
 * simulator answers as its start day's midnight, where each stock still trades at its catalogue
 * reference price (AAPL 227.48, NVDA 138.85, 0700 418.60, 9988 84.15, 005930 56300, …).
 * Returns a function that lets the market move again.
 *
 * @example
 * const release = holdPricesAtReference(service().context.prices)
 */
export function holdPricesAtReference(prices: PriceSimulator): () => void {
  const { lastPrice, marketQuote } = prices
  prices.lastPrice = (ticker, exchange) => lastPrice(ticker, exchange, 0)
  prices.marketQuote = (symbol, market) => marketQuote(symbol, market, 0)
  return () => {
    prices.lastPrice = lastPrice
    prices.marketQuote = marketQuote
  }
}

/**
 * Sets the last price (a decimal string in the market's currency) of the tickers given; the others
 * keep theirs. Returns a function that puts the previous prices back.
 *
 * @example
 * const restore = setLastPrices(service().context.prices, { AAPL: '227.48170001' })
 */
export function setLastPrices(
  prices: PriceSimulator,
  byTicker: Readonly<Record<string, string>>,
): () => void {
  const { lastPrice } = prices
  prices.lastPrice = (ticker, exchange, nowMs) => byTicker[ticker] ?? lastPrice(ticker, exchange, nowMs)
  return () => {
    prices.lastPrice = lastPrice
  }
}
