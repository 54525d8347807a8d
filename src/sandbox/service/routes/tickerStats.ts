// PLACEHOLDER (scaffolding, to be replaced by the real endpoint before commit)
import { httpError } from '../errors.js'
import type { Route } from '../route.js'

export const tickerStatsRoute: Route = {
  method: 'GET',
  path: '/api/v1/tickers/:symbol/stats',
  auth: 'public',
  handle: () => {
    throw httpError(501, 'Not implemented', '/api/v1/tickers/:symbol/stats')
  },
}
