import { noQuerySchema } from '../contract.js'
import type { ControlPlane } from '../controlPlane.js'
import { readQuery } from '../http/readQuery.js'
import type { ControlReply, ControlRequest } from '../types.js'
import { toStrategyView } from '../views/strategyView.js'

/**
 * `GET /v1/strategies`: every configured strategy, whether it runs, the last switch through the
 * API and its last evaluation.
 *
 * @example
 * const route = { method: 'GET', path: '/v1/strategies', handle: getStrategies(plane) } as const
 * // curl http://127.0.0.1:8787/v1/strategies → {"strategies":[{"id":"dca-aapl","enabled":true,…}]}
 */
export function getStrategies(plane: Pick<ControlPlane, 'strategies'>) {
  return (request: ControlRequest): ControlReply => {
    readQuery(request, noQuerySchema, 'Invalid strategies query')
    return { status: 200, body: { strategies: plane.strategies.list().map(toStrategyView) } }
  }
}
