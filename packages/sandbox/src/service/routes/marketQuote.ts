import { z } from 'zod'
import {
  findStock,
  marketOf,
  marketParam,
  quoteOf,
  unknownSymbol,
  wrongMarket,
} from '../market/marketSymbols.js'
import { parseQuery } from '../request.js'
import { ok, type Route } from '../route.js'

const marketQuoteQuery = z.object({ market: marketParam.optional() })

/**
 * GET /market/v1/tickers/{symbol}/quote: the market quote record of one stock, now. The reference
 * shows only the path symbol; an optional `market` is accepted and must then be the stock's market
 * (400 otherwise). An unknown symbol (case-sensitive; a ShareToken ticker is not a stock) is a 404.
 */
export const marketQuoteRoute: Route = {
  method: 'GET',
  path: '/market/v1/tickers/:symbol/quote',
  auth: 'institution',
  handle(request, context) {
    const query = parseQuery(request, marketQuoteQuery)
    const symbol = request.params.symbol ?? ''
    const stock = findStock(context, symbol)
    if (!stock) throw unknownSymbol(context, symbol)
    if (query.market !== undefined && query.market !== marketOf(stock)) throw wrongMarket(stock, query.market)
    return ok(quoteOf(context, stock))
  },
}
