import { marketCurrencies } from '@stockroute/client/domain/marketRules.js'
import { exchangeNames, shareTicker } from '@stockroute/client/domain/markets.js'
import { tickSize } from '@stockroute/client/domain/tickRules.js'
import { formatPrice, parsePrice } from '@stockroute/client/domain/unitStrings.js'
import { z } from 'zod'
import { findStock, marketOf, marketParam, unknownSymbol, wrongMarket } from '../market/marketSymbols.js'
import { parseQuery } from '../request.js'
import { ok, type Route } from '../route.js'

const tickerInfoQuery = z.object({ market: marketParam })

/**
 * GET /market/v1/tickers/{symbol}/info?market=hkex: a stock's basic information. `market` is
 * required (every example passes it) and must be the stock's market (400 otherwise); an unknown
 * symbol is a 404. Fields: symbol, stock_code, name, market, exchange (int code), exchange_name,
 * currency, lot_size (string), spread_table_code, last_price and tick_size (the tick at that
 * price, from the stock's spread table; 0.01 for US), share_symbol (the ShareToken's ticker, or
 * null when the stock has none).
 */
export const tickerInfoRoute: Route = {
  method: 'GET',
  path: '/market/v1/tickers/:symbol/info',
  auth: 'institution',
  handle(request, context) {
    const { market } = parseQuery(request, tickerInfoQuery)
    const symbol = request.params.symbol ?? ''
    const stock = findStock(context, symbol)
    if (!stock) throw unknownSymbol(context, symbol)
    if (marketOf(stock) !== market) throw wrongMarket(stock, market)
    const lastPrice = parsePrice(context.prices.lastPrice(stock.ticker, stock.exchange, context.clock.now()))
    return ok({
      symbol: stock.ticker,
      stock_code: stock.stockCode,
      name: stock.name,
      market,
      exchange: stock.exchange,
      exchange_name: exchangeNames[stock.exchange],
      currency: marketCurrencies[market],
      lot_size: String(stock.lotSize),
      spread_table_code: stock.spreadTableCode,
      last_price: formatPrice(lastPrice),
      tick_size: formatPrice(tickSize({ market, spreadTableCode: stock.spreadTableCode, price: lastPrice })),
      share_symbol: stock.hasShareToken ? shareTicker(stock.ticker) : null,
    })
  },
}
