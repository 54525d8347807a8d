import { EngineError } from '../../../engine/index.js'
import { executionIdSchema } from '../contract.js'
import { ControlApiError } from '../errors.js'
import { zodProblems } from '../http/zodProblems.js'
import type { ControlReply, ControlRequest, SwapApiEngine } from '../types.js'
import { toSwapExecutionView } from '../views/swapExecutionView.js'

/**
 * `GET /v1/swaps/:id`: the execution with its state, its quote, its transactions (what each calls,
 * where it is on chain) and its fills in full (200), 404 for an id the ledger does not have, 400
 * for an id that is not a positive whole number.
 *
 * @example
 * const route = { method: 'GET', path: '/v1/swaps/:id', handle: getSwap(engine) } as const
 * // curl http://127.0.0.1:8787/v1/swaps/12 → {"executionId":12,"state":"confirmed","quote":{…},"fills":[…],…}
 */
export function getSwap(engine: SwapApiEngine) {
  return (request: ControlRequest): ControlReply => {
    const id = executionIdSchema.safeParse(request.params.id)
    if (!id.success) {
      const problems = zodProblems(id.error, 'id')
      throw new ControlApiError({
        status: 400,
        code: 'BAD_REQUEST',
        message: `The execution id ${JSON.stringify(request.params.id)} ${problems[0]?.problem ?? 'is invalid'}.`,
        problems: problems.map(({ problem }) => ({ field: 'id', problem })),
      })
    }
    let outcome: ReturnType<SwapApiEngine['outcome']>
    try {
      outcome = engine.outcome(id.data)
    } catch (error) {
      if (error instanceof EngineError && error.code === 'EXECUTION_NOT_FOUND')
        throw new ControlApiError({
          status: 404,
          code: 'NOT_FOUND',
          message: `There is no execution ${id.data}: use the executionId returned by POST /v1/swaps.`,
        })
      throw error
    }
    return { status: 200, body: toSwapExecutionView(outcome) }
  }
}
