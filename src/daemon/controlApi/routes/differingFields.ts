import { differingIntentFields } from '../../../engine/index.js'
import type { ExecutionRecord } from '../../../store/executions.js'
import type { FieldProblem, SwapRequest } from '../contract.js'

/**
 * The fields in which a swap request differs from the execution recorded under its idempotency
 * key: the engine's comparison ({@link differingIntentFields}), which `stockroute swap --intent-id`
 * uses too. Empty: the same request.
 *
 * @example
 * differingFields({ ...request, amountIn: '2000' }, execution)
 * // [{ field: 'amountIn', problem: 'was "1000", now "2000"' }]
 */
export function differingFields(request: SwapRequest, execution: ExecutionRecord): FieldProblem[] {
  return differingIntentFields(request, execution)
}
