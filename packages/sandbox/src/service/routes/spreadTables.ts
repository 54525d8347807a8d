import { spreadTablesJsonByMarket } from '@stockroute/client/domain/spreadTables.js'
import { z } from 'zod'
import { badRequest, httpError } from '../errors.js'
import { shown } from '../market/marketSymbols.js'
import { parseQuery } from '../request.js'
import { ok, type Route } from '../route.js'

/**
 * GET /market/v1/{market}/spread-tables: the market's price-band tables, `data` being an array of
 * `{code, price_bands: [{from, to, minimum_spread}]}` (decimal strings; every band covers
 * [from, to) except the last, which includes its `to`). hkex serves HKEX table `1`, krex the KRX
 * bands of the reference (code `KRX`). usex is a 404 (US stocks have no table: one tick of 0.01
 * USD); any other market a 400.
 */
export const spreadTablesRoute: Route = {
  method: 'GET',
  path: '/market/v1/:market/spread-tables',
  auth: 'institution',
  handle(request) {
    parseQuery(request, z.object({}))
    const market = request.params.market ?? ''
    if (market === 'hkex' || market === 'krex') return ok(spreadTablesJsonByMarket[market])
    if (market === 'usex')
      throw httpError(
        404,
        'Not found',
        'market: usex has no spread tables; US stocks trade on one tick of 0.01 USD at every price (their spread_table_code "1" names no table)',
      )
    throw badRequest(`market: must be hkex or krex (the markets with spread tables), got ${shown(market)}`)
  },
}
