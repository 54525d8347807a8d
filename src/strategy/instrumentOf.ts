import {
  type ExchangeCode,
  type MarketCode,
  marketCodes,
  type TokenKind,
} from '@stockroute/client/domain/markets.js'

/** Where a ticker's price comes from and which token it names. */
export type StrategyInstrument = {
  readonly market: MarketCode
  /** The stock's ticker on the market-data endpoints: the ticker without a ShareToken's `s`. */
  readonly symbol: string
  readonly tokenKind: TokenKind
}

/**
 * The market, market symbol and token kind of a ticker: a ShareToken ticker is its stock's ticker
 * with a lowercase `s` suffix (stock tickers are upper case or digits), and its price is the
 * stock's.
 *
 * @example
 * instrumentOf({ ticker: 'AAPLs', exchange: 0 }) // { market: 'usex', symbol: 'AAPL', tokenKind: 'share' }
 * instrumentOf({ ticker: '0700', exchange: 1 }) // { market: 'hkex', symbol: '0700', tokenKind: 'stock' }
 */
export function instrumentOf(parameters: { ticker: string; exchange: ExchangeCode }): StrategyInstrument {
  const { ticker, exchange } = parameters
  const market = marketCodes[exchange]
  const isShare = ticker.length > 1 && ticker.endsWith('s')
  return isShare
    ? { market, symbol: ticker.slice(0, -1), tokenKind: 'share' }
    : { market, symbol: ticker, tokenKind: 'stock' }
}
