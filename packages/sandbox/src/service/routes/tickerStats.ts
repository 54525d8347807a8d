import { isExchangeCode } from '@stockroute/client/domain/markets.js'
import { z } from 'zod'
import { findListing } from '../context.js'
import type { Listing } from '../contextTypes.js'
import { badRequest, notFound } from '../errors.js'
import { assertServedChain } from '../ledger/queryHelpers.js'
import { formatScaled, notionalUsdScaled } from '../ledger/valuation.js'
import { intParam, parseQuery } from '../request.js'
import { ok, type Route } from '../route.js'

const tickerStatsQuery = z.object({
  exchange: intParam().refine(isExchangeCode, 'must be 0 (US), 1 (HK) or 3 (KR)'),
  chain_id: intParam({ min: 0 }).optional(),
})

/**
 * GET /api/v1/tickers/{symbol}/stats: orders and volume of one active ticker, on one chain or
 * aggregated over every chain where it is active. Orders are counted by the token's address, so a
 * renamed ticker keeps its history. `volume` is Σ price × quantity in USD natural units (the assets
 * are USD stablecoins of 6 or 18 decimals, so base units could not be summed across chains), as an
 * exact decimal string.
 */
export const tickerStatsRoute: Route = {
  method: 'GET',
  path: '/api/v1/tickers/:symbol/stats',
  auth: 'public',
  async handle(request, context) {
    const symbol = request.params.symbol ?? ''
    if (symbol.length === 0 || symbol.length > 32) throw badRequest('symbol: must be 1 to 32 characters')
    const query = parseQuery(request, tickerStatsQuery)
    if (!isExchangeCode(query.exchange)) throw badRequest('exchange: must be 0 (US), 1 (HK) or 3 (KR)')
    const exchange = query.exchange
    if (query.chain_id !== undefined) assertServedChain(context, query.chain_id)
    const listings = context.chains
      .filter((chain) => query.chain_id === undefined || chain.chainId === query.chain_id)
      .map((chain) => findListing(context, chain.chainId, symbol, exchange))
      .filter((listing): listing is Listing => listing?.isActive === true)
    const [first] = listings
    if (!first) {
      const where = query.chain_id === undefined ? 'any chain' : `chain ${query.chain_id}`
      throw notFound(`no active ticker ${symbol} on exchange ${exchange} and ${where}`)
    }
    await context.ledger.sync()
    const tokens = new Set(listings.map((listing) => `${listing.chainId}:${listing.address.toLowerCase()}`))
    const orders = context.ledger
      .orders(listings.map((listing) => listing.chainId))
      .filter((order) => tokens.has(`${order.chainId}:${order.stockToken.toLowerCase()}`))
    const volume = orders.reduce(
      (sum, { price, quantity, assetDecimals, tokenDecimals }) =>
        sum + notionalUsdScaled({ price, quantity, assetDecimals, tokenDecimals }),
      0n,
    )
    return ok({
      ticker: first.ticker,
      name: first.stock.name,
      ...(query.chain_id === undefined ? {} : { chain_id: first.chainId, address: first.address }),
      exchange,
      orders: orders.length,
      volume: formatScaled(volume),
    })
  },
}
