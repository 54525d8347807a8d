import { z } from 'zod'
import { corporateActionRecordJson } from '../ledger/corporateActionJson.js'
import { assertServedChain, paginate } from '../ledger/queryHelpers.js'
import { addressParam, intParam, parseQuery } from '../request.js'
import { ok, type Route } from '../route.js'

/**
 * Corporate actions page size: default 20 as in the reference, which gives no maximum; the sandbox
 * caps it at 100 like the other maker lists (above: 400 naming the limit).
 */
export const corporateActionsPageSize = { default: 20, max: 100 } as const

const corporateActionsQuery = z
  .object({
    token: addressParam,
    chain_id: intParam({ min: 0 }),
    page: intParam({ min: 1 }),
    page_size: intParam({ min: 1, max: corporateActionsPageSize.max }),
  })
  .partial()

/**
 * GET /api/v1/maker/corporate-actions/actions: the authenticated maker's corporate action records
 * (triggered or processed), newest first, filtered by token address and chain.
 */
export const corporateActionsRoute: Route = {
  method: 'GET',
  path: '/api/v1/maker/corporate-actions/actions',
  auth: 'maker',
  handle(request, context, caller) {
    const query = parseQuery(request, corporateActionsQuery)
    if (caller.kind !== 'maker') throw new Error('corporate actions route reached without a maker caller')
    if (query.chain_id !== undefined) assertServedChain(context, query.chain_id)
    const records = context.ledger.corporateActions.recordsOf(caller.makerAddress, {
      ...(query.chain_id === undefined ? {} : { chainId: query.chain_id }),
      ...(query.token === undefined ? {} : { token: query.token }),
    })
    const { items, total } = paginate(
      records,
      query.page ?? 1,
      query.page_size ?? corporateActionsPageSize.default,
    )
    return ok({ actions: items.map(corporateActionRecordJson), total_count: total })
  },
}
