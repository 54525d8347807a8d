import { type MarketCode, marketCodes } from '@stockroute/client/domain/markets.js'
import { sandboxCatalogue } from '@stockroute/sandbox/catalogue.js'
import type { TickerRulesLookup } from '../strategy/checkStrategyMarketRules.js'

/**
 * The tickers' rules of the embedded sandbox, read from its seeded catalogue: the very stocks,
 * lots and spread tables it serves, so an embedded configuration is checked without starting it.
 *
 * @example
 * await catalogueTickerRules({ symbol: '0700', market: 'hkex' }) // { lotSize: 100n, spreadTableCode: '1' }
 */
export const catalogueTickerRules: TickerRulesLookup = async ({ symbol, market }) => {
  const stock = sandboxCatalogue.find(
    (candidate) => candidate.ticker === symbol && (marketCodes[candidate.exchange] as MarketCode) === market,
  )
  return stock ? { lotSize: BigInt(stock.lotSize), spreadTableCode: stock.spreadTableCode } : undefined
}
