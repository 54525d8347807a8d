import { EngineError } from '../../../engine/index.js'
import { ExecutionStateError } from '../../../store/executionStates.js'
import { cancelBodySchema, executionIdParamSchema, noQuerySchema } from '../contract.js'
import type { ControlPlane } from '../controlPlane.js'
import { ControlApiError } from '../errors.js'
import { readBody } from '../http/readBody.js'
import { readPathParam } from '../http/readPathParam.js'
import { readQuery } from '../http/readQuery.js'
import type { ControlReply, ControlRequest } from '../types.js'
import { toExecutionView } from '../views/executionView.js'

/** The start of the reason recorded: the execution's history says who stopped it. */
const cancelledBy = 'through the control API'

/**
 * `POST /v1/executions/:id/cancel` with an optional body `{reason?}`: stops an execution that has
 * not been signed yet (it ends `rejected` and is never signed): 200 `{cancelled: true, execution}`.
 * Too late is 409: `ALREADY_SIGNED` (a transaction of it is signed: only the chain decides now) or
 * `ALREADY_FINISHED`; an unknown id is 404.
 *
 * @example
 * const route = { method: 'POST', path: '/v1/executions/:id/cancel', handle: postExecutionCancel(plane) } as const
 * // curl -X POST -H 'Content-Type: application/json' -d '{"reason":"wrong size"}' \
 * //   http://127.0.0.1:8787/v1/executions/12/cancel → {"cancelled":true,"execution":{"state":"rejected",…}}
 */
export function postExecutionCancel(plane: Pick<ControlPlane, 'cancelExecution' | 'ledger'>) {
  return async (request: ControlRequest): Promise<ControlReply> => {
    const executionId = readPathParam(request, 'id', executionIdParamSchema, 'execution id')
    readQuery(request, noQuerySchema, 'Invalid cancel request')
    const body = await readBody(request, cancelBodySchema, 'Invalid cancel request', { optional: true })
    let outcome: Awaited<ReturnType<ControlPlane['cancelExecution']>>
    try {
      outcome = await plane.cancelExecution(
        executionId,
        body.reason === undefined ? cancelledBy : `${cancelledBy}: ${body.reason}`,
      )
    } catch (error) {
      if (
        (error instanceof EngineError || error instanceof ExecutionStateError) &&
        error.code === 'EXECUTION_NOT_FOUND'
      )
        throw new ControlApiError({
          status: 404,
          code: 'NOT_FOUND',
          message: `There is no execution ${executionId}: GET /v1/executions lists them.`,
        })
      throw error
    }
    if (!outcome.cancelled)
      throw new ControlApiError({
        status: 409,
        code: outcome.code,
        message: `Too late to cancel: ${outcome.reason}.`,
      })
    const { ledger } = plane
    const view = toExecutionView({
      execution: outcome.execution,
      transactions: ledger.transactions.listTransactionsForExecution(executionId),
      fills: ledger.fills.listFills({ executionId }),
    })
    return { status: 200, body: { cancelled: true, execution: view } }
  }
}
