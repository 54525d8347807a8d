import { badRequest, notFound } from '../errors.js'
import { corporateActionJson } from '../ledger/corporateActionJson.js'
import { corporateActionInput } from '../ledger/corporateActionTypes.js'
import { canonicalUuid } from '../ledger/ids.js'
import { describeIssues, type SandboxRequest } from '../request.js'
import { ok, type Route } from '../route.js'

// The sandbox's own operator endpoints, under /sandbox/v1 (not part of the interface reference).
// They need no credentials: the sandbox listens on 127.0.0.1 only, and whoever can reach it can run
// the chains' keys anyway. They play the service's back office: corporate actions are triggered and
// processed here, and makers then see their records through the reference's endpoints.
//
//   POST /sandbox/v1/corporate-actions            trigger: one `triggered` record per holder
//        {chain_id, ticker, exchange, action_type, params, lock_tokens?}
//          stock_split / reverse_stock_split  params {numerator, denominator}  (2/1 doubles; 1/10 reverse)
//          delisting                          params {} (may be omitted)
//          ticker_change                      params {new_ticker}
//          dividend                           params {dividend_per_share, tax_rate, fee_amount?,
//                                                     ex_dividend_date, dividend_date, distribution_plan?}
//          lock_tokens true pauses the token on chain until the action is processed.
//   POST /sandbox/v1/corporate-actions/{id}/process  apply on chain, records become `processed`
//   GET  /sandbox/v1/corporate-actions            every action, newest first, with its records
//   GET  /sandbox/v1/corporate-actions/{id}       one action with its records
//   GET  /sandbox/v1/ledger                       sync the ledger; per chain: synced block, orders, makers

const triggerRoute: Route = {
  method: 'POST',
  path: '/sandbox/v1/corporate-actions',
  auth: 'public',
  async handle(request, context) {
    const parsed = corporateActionInput.safeParse(jsonBody(request))
    if (!parsed.success) throw badRequest(describeIssues(parsed.error))
    return ok(corporateActionJson(await context.ledger.corporateActions.trigger(parsed.data)))
  },
}

const processRoute: Route = {
  method: 'POST',
  path: '/sandbox/v1/corporate-actions/:id/process',
  auth: 'public',
  async handle(request, context) {
    const id = actionIdOf(request)
    return ok(corporateActionJson(await context.ledger.corporateActions.process(id)))
  },
}

const listRoute: Route = {
  method: 'GET',
  path: '/sandbox/v1/corporate-actions',
  auth: 'public',
  handle(_request, context) {
    return ok({ actions: context.ledger.corporateActions.list().map(corporateActionJson) })
  },
}

const getRoute: Route = {
  method: 'GET',
  path: '/sandbox/v1/corporate-actions/:id',
  auth: 'public',
  handle(request, context) {
    const action = context.ledger.corporateActions.get(actionIdOf(request))
    if (!action) throw notFound(`no corporate action ${request.params.id}`)
    return ok(corporateActionJson(action))
  },
}

const ledgerRoute: Route = {
  method: 'GET',
  path: '/sandbox/v1/ledger',
  auth: 'public',
  async handle(_request, context) {
    await context.ledger.sync()
    return ok({
      chains: context.chains.map((chain) => {
        const orders = context.ledger.orders([chain.chainId])
        return {
          chain_id: chain.chainId,
          synced_block: Number(context.ledger.syncedBlock(chain.chainId) ?? -1n),
          orders: orders.length,
          makers: new Set(orders.map((order) => order.maker.toLowerCase())).size,
        }
      }),
    })
  },
}

/** The sandbox's operator endpoints (public, loopback only). */
export const sandboxAdminRoutes: Route[] = [triggerRoute, processRoute, listRoute, getRoute, ledgerRoute]

function jsonBody(request: SandboxRequest): unknown {
  if (request.body.trim() === '') throw badRequest('body: a JSON object is required')
  try {
    return JSON.parse(request.body)
  } catch {
    throw badRequest('body: is not valid JSON')
  }
}

function actionIdOf(request: SandboxRequest): string {
  const id = canonicalUuid(request.params.id ?? '')
  if (!id) throw notFound(`no corporate action ${String(request.params.id).slice(0, 64)}: ids are UUIDs`)
  return id
}
