import { executionIdParamSchema } from '../contract.js'
import type { ControlPlane } from '../controlPlane.js'
import { ControlApiError } from '../errors.js'
import { readPathParam } from '../http/readPathParam.js'
import type { ControlReply, ControlRequest } from '../types.js'
import { toExecutionDetailView } from '../views/executionDetailView.js'

/**
 * `GET /v1/executions/:id`: the execution, its timeline (`events`: every state change and why),
 * its transactions (never the signed bytes) and its fills; 404 for an id the ledger does not have.
 *
 * @example
 * const route = { method: 'GET', path: '/v1/executions/:id', handle: getExecution(plane) } as const
 * // curl http://127.0.0.1:8787/v1/executions/12
 * // → {"executionId":12,"state":"confirmed","events":[{"from":null,"to":"intent",…},…],…}
 */
export function getExecution(plane: Pick<ControlPlane, 'ledger'>) {
  return (request: ControlRequest): ControlReply => {
    const executionId = readPathParam(request, 'id', executionIdParamSchema, 'execution id')
    const { executions, transactions, fills } = plane.ledger
    const execution = executions.getExecution(executionId)
    if (!execution)
      throw new ControlApiError({
        status: 404,
        code: 'NOT_FOUND',
        message: `There is no execution ${executionId}: GET /v1/executions lists them.`,
      })
    return {
      status: 200,
      body: toExecutionDetailView({
        execution,
        events: executions.listExecutionEvents(executionId),
        transactions: transactions.listTransactionsForExecution(executionId),
        fills: fills.listFills({ executionId, includeReversed: true }),
      }),
    }
  }
}
