import { isExchangeCode } from '@stockroute/client/domain/markets.js'
import { priceDecimals } from '@stockroute/client/domain/units.js'
import { z } from 'zod'
import type { CatalogueStock } from '../../catalogue.js'
import { badRequest } from '../errors.js'
import { lastPriceOf } from '../ledger/valuation.js'
import { intParam, parseQuery } from '../request.js'
import { ok, type Route } from '../route.js'

const heatmapsQuery = z.object({
  exchange: intParam().refine(isExchangeCode, 'must be 0 (US), 1 (HK) or 3 (KR)'),
})

/**
 * GET /api/v1/tickers/heatmaps?exchange=N: one entry per stock of the exchange with an active
 * StockToken listing on some chain: `symbol` its current ticker (default chain first),
 * `total_shares` shares outstanding from the catalogue, `market_cap` total_shares × the price
 * simulator's last price in the market's own currency (USD, HKD, KRW), truncated to an integer.
 * Largest market cap first.
 */
export const heatmapsRoute: Route = {
  method: 'GET',
  path: '/api/v1/tickers/heatmaps',
  auth: 'public',
  handle(request, context) {
    const query = parseQuery(request, heatmapsQuery)
    if (!isExchangeCode(query.exchange)) throw badRequest('exchange: must be 0 (US), 1 (HK) or 3 (KR)')
    const nowMs = context.clock.now()
    const chains = [...context.chains].sort(
      (a, b) => Number(b.chainId === context.defaultChainId) - Number(a.chainId === context.defaultChainId),
    )
    const stocks = new Map<string, { symbol: string; stock: CatalogueStock }>()
    for (const chain of chains) {
      for (const listing of context.listings.get(chain.chainId) ?? []) {
        if (listing.kind !== 'stock' || !listing.isActive || listing.exchange !== query.exchange) continue
        const key = listing.stock.ticker
        if (!stocks.has(key)) stocks.set(key, { symbol: listing.ticker, stock: listing.stock })
      }
    }
    const entries = [...stocks.values()].map(({ symbol, stock }) => {
      const price = lastPriceOf(context, stock, nowMs)
      const marketCap = (BigInt(Math.trunc(stock.totalShares)) * price) / 10n ** BigInt(priceDecimals)
      return {
        symbol,
        company_name: stock.name,
        market_cap: Number(marketCap),
        total_shares: stock.totalShares,
      }
    })
    entries.sort((a, b) => b.market_cap - a.market_cap || (a.symbol < b.symbol ? -1 : 1))
    return ok(entries)
  },
}
