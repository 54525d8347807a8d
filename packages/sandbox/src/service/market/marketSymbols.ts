import { type MarketCode, marketCodes } from '@stockroute/client/domain/markets.js'
import { z } from 'zod'
import type { CatalogueStock } from '../../catalogue.js'
import type { MarketQuoteRecord, SandboxContext } from '../contextTypes.js'
import { badRequest, notFound } from '../errors.js'

// What the four market-data endpoints share: the market parameter, symbol lookup in the
// catalogue, and the errors naming what was wrong and how to fix it.

export const marketValues = ['usex', 'hkex', 'krex'] as const satisfies readonly MarketCode[]

/** The `market` query parameter: a market code. */
export const marketParam = z.enum(marketValues, {
  error: (issue) => (issue.input === undefined ? 'is required' : 'must be usex, hkex or krex'),
})

/** The market a catalogue stock trades on. */
export function marketOf(stock: CatalogueStock): MarketCode {
  return marketCodes[stock.exchange]
}

/** The catalogue stock whose ticker is `symbol` (exact, case-sensitive), on any market. */
export function findStock(context: SandboxContext, symbol: string): CatalogueStock | undefined {
  return context.catalogue.find((stock) => stock.ticker === symbol)
}

/** A symbol as error details show it: quoted, and cut short when long. */
export function shown(symbol: string): string {
  return JSON.stringify(symbol.length > 32 ? `${symbol.slice(0, 32)}…` : symbol)
}

/** Names in a message, at most ten, then how many more. */
export function shownList(symbols: readonly string[]): string {
  const head = symbols.slice(0, 10).map(shown).join(', ')
  return symbols.length > 10 ? `${head} and ${symbols.length - 10} more` : head
}

/** Why `symbol` is not a stock of the catalogue, with the likely fix when there is one. */
export function unknownSymbolHint(context: SandboxContext, symbol: string): string {
  const stem = symbol.endsWith('s') ? findStock(context, symbol.slice(0, -1)) : undefined
  if (stem?.hasShareToken)
    return `${shown(symbol)} is a ShareToken ticker; market data is quoted for its stock ${shown(stem.ticker)}`
  const other = context.catalogue.find((stock) => stock.ticker.toLowerCase() === symbol.toLowerCase())
  if (other) return `symbols are case-sensitive: did you mean ${shown(other.ticker)}?`
  return `no stock has the symbol ${shown(symbol)}; list the tickers with GET /api/v1/chains/{chain_id}/tokens`
}

/** 404 for a symbol that is no stock of the catalogue. */
export function unknownSymbol(context: SandboxContext, symbol: string) {
  return notFound(`symbol: ${unknownSymbolHint(context, symbol)}`)
}

/** 400 for a symbol asked for on a market it does not trade on. */
export function wrongMarket(stock: CatalogueStock, market: MarketCode) {
  return badRequest(
    `market: ${shown(stock.ticker)} trades on ${marketOf(stock)}, not ${market}; pass market=${marketOf(stock)}`,
  )
}

/** The market quote record of a catalogue stock at the service's current time. */
export function quoteOf(context: SandboxContext, stock: CatalogueStock): MarketQuoteRecord {
  const record = context.prices.marketQuote(stock.ticker, marketOf(stock), context.clock.now())
  if (!record) throw new Error(`the price simulator does not know the catalogue stock ${stock.ticker}`)
  // TEST-ONLY: a status forced through POST /sandbox/v1/faults/market-status (faults: true only).
  const forced = context.faults?.marketStatuses.get(stock.ticker)
  return forced === undefined ? record : { ...record, status: forced }
}
