import { z } from 'zod'
import { badRequest, notFound } from '../errors.js'
import { findStock, marketOf, marketParam, quoteOf, shown, shownList } from '../market/marketSymbols.js'
import { parseQuery, stringParam } from '../request.js'
import { ok, type Route } from '../route.js'

/** Most symbols one batch request may name (the reference's limit). */
export const maxSymbolsPerBatch = 30

const marketQuotesQuery = z.object({ symbols: stringParam(), market: marketParam })

/**
 * GET /market/v1/tickers/quotes?symbols=A,B&market=usex: market quote records of up to 30 stocks
 * of one market, in the order asked. Items are trimmed of surrounding spaces. Checks, in order,
 * each a 400 naming the problem: `symbols` and `market` present and valid; at most 30 items
 * (split bigger requests); no empty item (a stray comma); no symbol twice (each one counts toward
 * the 30); every known symbol on the given market (mixed markets: one request per market). Then
 * a 404 naming every symbol that is no stock at all.
 */
export const marketQuotesRoute: Route = {
  method: 'GET',
  path: '/market/v1/tickers/quotes',
  auth: 'institution',
  handle(request, context) {
    const query = parseQuery(request, marketQuotesQuery)
    const { market } = query
    if (query.symbols.trim() === '')
      throw badRequest(`symbols: must not be empty; give 1 to ${maxSymbolsPerBatch} comma-separated symbols`)
    const symbols = query.symbols.split(',').map((item) => item.trim())
    if (symbols.length > maxSymbolsPerBatch)
      throw badRequest(
        `symbols: ${symbols.length} given, at most ${maxSymbolsPerBatch} per request; split the request into batches of ${maxSymbolsPerBatch} symbols or fewer`,
      )
    const empty = symbols.flatMap((item, index) => (item === '' ? [String(index + 1)] : []))
    if (empty.length > 0)
      throw badRequest(
        `symbols: item ${empty.join(', ')} of ${symbols.length} is empty; remove the stray comma`,
      )
    const duplicates = [...new Set(symbols.filter((item, index) => symbols.indexOf(item) !== index))]
    if (duplicates.length > 0)
      throw badRequest(`symbols: ${shownList(duplicates)} given more than once; list each symbol once`)
    const resolved = symbols.map((symbol) => ({ symbol, stock: findStock(context, symbol) }))
    const foreign = resolved.flatMap(({ symbol, stock }) =>
      stock && marketOf(stock) !== market ? [`${shown(symbol)} (${marketOf(stock)})`] : [],
    )
    if (foreign.length > 0)
      throw badRequest(
        `symbols: every symbol must belong to market=${market}, but ${foreign.join(', ')} ${foreign.length === 1 ? 'does' : 'do'} not; send one request per market`,
      )
    const unknown = resolved.flatMap(({ symbol, stock }) => (stock ? [] : [symbol]))
    if (unknown.length > 0)
      throw notFound(
        `symbols: no ${market} stock has the symbol ${shownList(unknown)} (symbols are case-sensitive; ShareToken tickers have no market data)`,
      )
    return ok(resolved.flatMap(({ stock }) => (stock ? [quoteOf(context, stock)] : [])))
  },
}
