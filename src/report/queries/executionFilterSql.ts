import type { ReportFilter } from '../types.js'

/** A WHERE fragment and its named parameters, for better-sqlite3's `@name` binding. */
export type FilterSql = {
  where: string
  params: Record<string, string | number>
}

/**
 * The WHERE conditions of a {@link ReportFilter} on the `executions` table (aliased `alias`): chain,
 * ticker, strategy and the creation time (`since` inclusive, `until` exclusive). Only the filter's
 * own conditions are written (`1` when none), so SQLite picks the index that serves them.
 *
 * @example
 * const { where, params } = executionFilterSql({ chainId: 31337, sinceMs: 0 }, 'e')
 * db.prepare(`SELECT count(*) FROM executions e WHERE ${where}`).get(params)
 */
export function executionFilterSql(filter: ReportFilter, alias: string): FilterSql {
  const conditions: string[] = []
  const params: FilterSql['params'] = {}
  const add = (condition: string, name: string, value: string | number | undefined) => {
    if (value === undefined) return
    conditions.push(condition)
    params[name] = value
  }
  add(`${alias}.chain_id = @chain_id`, 'chain_id', filter.chainId)
  add(`${alias}.ticker = @ticker`, 'ticker', filter.ticker)
  add(`${alias}.strategy = @strategy`, 'strategy', filter.strategy)
  add(`${alias}.created_at_ms >= @since_ms`, 'since_ms', filter.sinceMs)
  add(`${alias}.created_at_ms < @until_ms`, 'until_ms', filter.untilMs)
  return { where: conditions.length === 0 ? '1' : conditions.join(' AND '), params }
}
