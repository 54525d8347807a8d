import { noQuerySchema } from '../contract.js'
import type { ControlPlane } from '../controlPlane.js'
import { ControlApiError } from '../errors.js'
import { readQuery } from '../http/readQuery.js'
import type { ControlReply, ControlRequest, ControlServerLogger } from '../types.js'

/**
 * `GET /v1/balances`: every chain's wallets with their native and asset balances, read from the
 * chains now. A node that does not answer is 503 `CHAIN_UNAVAILABLE` (the cause goes to the log
 * only: an RPC URL may hold a key).
 *
 * @example
 * const route = { method: 'GET', path: '/v1/balances', handle: getBalances(plane, logger) } as const
 * // curl http://127.0.0.1:8787/v1/balances
 * // → {"chains":[{"chainId":31337,"wallets":[{"address":"0x…","native":"…","asset":{"symbol":"USDC",…}}]}]}
 */
export function getBalances(plane: Pick<ControlPlane, 'balances'>, logger: ControlServerLogger | undefined) {
  return async (request: ControlRequest): Promise<ControlReply> => {
    readQuery(request, noQuerySchema, 'Invalid balances query')
    try {
      return { status: 200, body: { chains: await plane.balances(request.signal) } }
    } catch (error) {
      if (request.signal.aborted) throw error
      logger?.warn({ requestId: request.requestId, err: error }, 'control API: reading balances failed')
      throw new ControlApiError({
        status: 503,
        code: 'CHAIN_UNAVAILABLE',
        message: `The balances could not be read from the chains (request id ${request.requestId}): a node did not answer; the daemon's log has the cause. Retry shortly.`,
        headers: { 'retry-after': '2' },
      })
    }
  }
}
