// PLACEHOLDER (scaffolding, to be replaced by the real endpoint before commit)
import { httpError } from '../errors.js'
import type { Route } from '../route.js'

export const marketQuoteRoute: Route = {
  method: 'GET',
  path: '/market/v1/tickers/:symbol/quote',
  auth: 'institution',
  handle: () => {
    throw httpError(501, 'Not implemented', '/market/v1/tickers/:symbol/quote')
  },
}
