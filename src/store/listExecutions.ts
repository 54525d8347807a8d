import type { RepositoryContext } from './context.js'
import { type ExecutionRecord, type ExecutionRow, toRecord } from './executionRecord.js'
import type { ExecutionState } from './executionStates.js'

/** Which executions to list; every field narrows, none widens. */
export type ExecutionFilter = {
  state?: readonly ExecutionState[] | undefined
  chainId?: number | undefined
  ticker?: string | undefined
  strategy?: string | undefined
  /** Created at or after (Unix ms). */
  sinceMs?: number | undefined
  /** Created before (Unix ms). */
  untilMs?: number | undefined
  /** Paging: only executions with a smaller id (the previous page's last). */
  beforeId?: number | undefined
  /** At most this many, default 100. */
  limit?: number | undefined
}

/**
 * Executions matching `filter`, newest first. The page is full when it has `limit` rows: ask for
 * the next with `beforeId` set to its last id.
 *
 * @example
 * const page = listExecutions(context)({ state: ['failed'], chainId: 31337, limit: 50 })
 * const next = listExecutions(context)({ state: ['failed'], chainId: 31337, limit: 50, beforeId: page.at(-1)?.id })
 */
export function listExecutions({ db }: RepositoryContext): (filter?: ExecutionFilter) => ExecutionRecord[] {
  // One statement: a NULL parameter switches its condition off. States are passed as a JSON array.
  const select = db.prepare<
    {
      states: string | null
      chain_id: number | null
      ticker: string | null
      strategy: string | null
      since_ms: number | null
      until_ms: number | null
      before_id: number | null
      limit: number
    },
    ExecutionRow
  >(
    `SELECT * FROM executions
     WHERE (@states IS NULL OR state IN (SELECT value FROM json_each(@states)))
       AND (@chain_id IS NULL OR chain_id = @chain_id)
       AND (@ticker IS NULL OR ticker = @ticker)
       AND (@strategy IS NULL OR strategy = @strategy)
       AND (@since_ms IS NULL OR created_at_ms >= @since_ms)
       AND (@until_ms IS NULL OR created_at_ms < @until_ms)
       AND (@before_id IS NULL OR id < @before_id)
     ORDER BY id DESC LIMIT @limit`,
  )
  return (filter = {}) =>
    select
      .all({
        states: filter.state && filter.state.length > 0 ? JSON.stringify(filter.state) : null,
        chain_id: filter.chainId ?? null,
        ticker: filter.ticker ?? null,
        strategy: filter.strategy ?? null,
        since_ms: filter.sinceMs ?? null,
        until_ms: filter.untilMs ?? null,
        before_id: filter.beforeId ?? null,
        limit: filter.limit ?? 100,
      })
      .map(toRecord)
}
