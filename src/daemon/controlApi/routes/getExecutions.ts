import type { z } from 'zod'
import type { ExecutionRecord } from '../../../store/executionRecord.js'
import type { ExecutionFilter } from '../../../store/listExecutions.js'
import type { executionPageSchema } from '../contract.js'
import { executionsQuerySchema } from '../contract.js'
import type { ControlPlane } from '../controlPlane.js'
import { encodeExecutionCursor } from '../executionCursor.js'
import { readQuery } from '../http/readQuery.js'
import type { ControlReply, ControlRequest } from '../types.js'
import { toExecutionView } from '../views/executionView.js'

/** The page size when the query names none. */
const defaultLimit = 100

/**
 * `GET /v1/executions?state=a,b&chainId&ticker&strategy&since&until&limit&cursor&intentId`:
 * executions, newest first, a page at a time, each with its transactions and fills. `nextCursor` is
 * null on the last page (one row more than the page is read to know), else passed back as
 * `cursor`. `intentId` narrows to the one execution of that intent (the CLI asks whether an
 * `--intent-id` was executed before without the daemon).
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
    const filter: ExecutionFilter = {
      state: query.state,
      chainId: query.chainId,
      ticker: query.ticker,
      strategy: query.strategy,
      sinceMs: query.since,
      untilMs: query.until,
      beforeId: query.cursor,
    }
    let rows: ExecutionRecord[]
    if (query.intentId === undefined) rows = executions.listExecutions({ ...filter, limit: limit + 1 })
    else {
      // One intent has at most one execution: read it by its key, then the other filters narrow.
      const execution = executions.getExecutionByIntent(query.intentId)
      rows = execution && matchesFilter(execution, filter) ? [execution] : []
    }
    const page = rows.slice(0, limit)
    const last = page.at(-1)
    // Two indexed queries for the whole page, not two per execution.
    const ids = page.map((execution) => execution.id)
    const transactionsOf = groupBy(transactions.listTransactionsOfExecutions(ids), (tx) => tx.executionId)
    const fillsOf = groupBy(fills.listFillsOfExecutions(ids), (fill) => fill.executionId)
    const body: z.output<typeof executionPageSchema> = {
      executions: page.map((execution) =>
        toExecutionView({
          execution,
          transactions: transactionsOf.get(execution.id) ?? [],
          fills: fillsOf.get(execution.id) ?? [],
        }),
      ),
      nextCursor: rows.length > limit && last ? encodeExecutionCursor(last.id) : null,
    }
    return { status: 200, body }
  }
}

/** Whether `execution` passes `filter`, as the ledger's listExecutions would judge it. */
function matchesFilter(execution: ExecutionRecord, filter: ExecutionFilter): boolean {
  return (
    (filter.state === undefined || filter.state.length === 0 || filter.state.includes(execution.state)) &&
    (filter.chainId === undefined || execution.chainId === filter.chainId) &&
    (filter.ticker === undefined || execution.ticker === filter.ticker) &&
    (filter.strategy === undefined || execution.strategy === filter.strategy) &&
    (filter.sinceMs === undefined || execution.createdAtMs >= filter.sinceMs) &&
    (filter.untilMs === undefined || execution.createdAtMs < filter.untilMs) &&
    (filter.beforeId === undefined || execution.id < filter.beforeId)
  )
}

/** `items` by `keyOf`, each group in the order of `items`. */
function groupBy<T>(items: readonly T[], keyOf: (item: T) => number | null): Map<number | null, T[]> {
  const groups = new Map<number | null, T[]>()
  for (const item of items) {
    const key = keyOf(item)
    const group = groups.get(key)
    if (group) group.push(item)
    else groups.set(key, [item])
  }
  return groups
}
