import type { ControlRoute, ControlServerLogger, SwapApiEngine, SwapRouting } from '../types.js'
import { getQuotes } from './getQuotes.js'
import { getSwap } from './getSwap.js'
import { postSwap } from './postSwap.js'

/**
 * The swap API's route table: `POST /v1/swaps`, `GET /v1/swaps/:id`, `GET /v1/quotes`.
 *
 * @example
 * const routes = [...swapApiRoutes(engine, logger), { method: 'GET', path: '/health', handle }]
 */
export function swapApiRoutes(
  engine: SwapApiEngine,
  logger: ControlServerLogger | undefined,
  routing?: SwapRouting | undefined,
): ControlRoute[] {
  return [
    { method: 'POST', path: '/v1/swaps', handle: postSwap(engine, logger, routing) },
    { method: 'GET', path: '/v1/swaps/:id', handle: getSwap(engine) },
    { method: 'GET', path: '/v1/quotes', handle: getQuotes(engine) },
  ]
}
