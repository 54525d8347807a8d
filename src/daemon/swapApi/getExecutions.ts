import type { z } from 'zod'
import type { ControlPlane } from './controlPlane.js'
import { executionsQuerySchema } from './controlSchemas.js'
import { encodeExecutionCursor } from './executionCursor.js'
import { toExecutionView } from './executionView.js'
import { readQuery } from './readQuery.js'
import type { executionPageSchema } from './replySchemas.js'
import type { ControlReply, ControlRequest } from './types.js'

/** The page size when the query names none. */
const defaultLimit = 100

/**
 * `GET /v1/executions?state=a,b&chainId&ticker&strategy&since&until&limit&cursor`: executions,
 * newest first, a page at a time, each with its transactions and fills. `nextCursor` is null on
 * the last page (one row more than the page is read to know), else passed back as `cursor`.
 *
 * @example
 * const route = { method: 'GET', path: '/v1/executions', handle: getExecutions(plane) } as const
 * // curl 'http://127.0.0.1:8787/v1/executions?state=failed,expired&limit=50'
 * // → {"executions":[{"executionId":41,"state":"failed",…}],"nextCursor":"eDo0MQ"}
 */
export function getExecutions(plane: Pick<ControlPlane, 'ledger'>) {
  return (request: ControlRequest): ControlReply => {
    const query = readQuery(request, executionsQuerySchema, 'Invalid executions query')
    const limit = query.limit ?? defaultLimit
    const { executions, transactions, fills } = plane.ledger
    const rows = executions.listExecutions({
      state: query.state,
      chainId: query.chainId,
      ticker: query.ticker,
      strategy: query.strategy,
      sinceMs: query.since,
      untilMs: query.until,
      beforeId: query.cursor,
      limit: limit + 1,
    })
    const page = rows.slice(0, limit)
    const last = page.at(-1)
    const body: z.output<typeof executionPageSchema> = {
      executions: page.map((execution) =>
        toExecutionView({
          execution,
          transactions: transactions.listTransactionsForExecution(execution.id),
          fills: fills.listFills({ executionId: execution.id }),
        }),
      ),
      nextCursor: rows.length > limit && last ? encodeExecutionCursor(last.id) : null,
    }
    return { status: 200, body }
  }
}
