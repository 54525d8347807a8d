import { z } from 'zod'
import { badRequest } from '../errors.js'
import type { FaultSwitch } from '../faultSwitch.js'
import { findStock, unknownSymbolHint } from '../market/marketSymbols.js'
import { describeIssues } from '../request.js'
import { ok, type Route } from '../route.js'
import { enabledFaults, jsonBody } from './sandboxFaults.js'

// TEST-ONLY operator endpoints (public, loopback only, like sandboxFaults.ts) that force the
// `status` of a stock's market quotes, so that a client's handling of a quote that is not `normal`
// (a halted stock: no new entries) can be tested against the real service. The reference shows
// only `normal`; the sandbox never sends another status unless told to here. They answer 404
// unless the service was started with `faults: true`.
//
//   POST /sandbox/v1/faults/market-status   {"symbol": "0700", "status": "halted" | null}
//        forces (or, with null, clears) the status of that stock's market quotes, single and batch,
//        until cleared. Replies {code: 0, data: {statuses: {symbol: status, …}}}.
//   GET  /sandbox/v1/faults/market-status   the forced statuses

const statusInput = z.strictObject(
  {
    symbol: z.string({ error: 'must be a stock symbol, e.g. "0700"' }).min(1, 'must not be empty'),
    status: z
      .string({ error: 'must be a status string, e.g. "halted", or null to clear' })
      .min(1, 'must not be empty: give a status, e.g. "halted", or null to clear')
      .nullable(),
  },
  {
    error: (issue) =>
      issue.code === 'invalid_type' ? 'body: must be a JSON object {symbol, status}' : undefined,
  },
)

const setStatusRoute: Route = {
  method: 'POST',
  path: '/sandbox/v1/faults/market-status',
  auth: 'public',
  handle(request, context) {
    const faults = enabledFaults(context)
    const parsed = statusInput.safeParse(jsonBody(request, '{symbol, status}'))
    if (!parsed.success) throw badRequest(describeIssues(parsed.error))
    const { symbol, status } = parsed.data
    if (!findStock(context, symbol)) throw badRequest(`symbol: ${unknownSymbolHint(context, symbol)}`)
    if (status === null) faults.marketStatuses.delete(symbol)
    else faults.marketStatuses.set(symbol, status)
    return ok(statusesJson(faults))
  },
}

const getStatusRoute: Route = {
  method: 'GET',
  path: '/sandbox/v1/faults/market-status',
  auth: 'public',
  handle(_request, context) {
    return ok(statusesJson(enabledFaults(context)))
  },
}

/** The TEST-ONLY market-status endpoints (public, loopback only; 404 unless started with faults). */
export const sandboxMarketStatusFaultRoutes: Route[] = [setStatusRoute, getStatusRoute]

function statusesJson(faults: FaultSwitch) {
  return { statuses: Object.fromEntries(faults.marketStatuses) }
}
