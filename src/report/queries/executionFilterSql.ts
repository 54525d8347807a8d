import type { ReportFilter } from '../types.js'

/** A WHERE fragment and its named parameters, for better-sqlite3's `@name` binding. */
export type FilterSql = {
  where: string
  params: Record<string, string | number | null>
}

/**
 * The WHERE conditions of a {@link ReportFilter} on the `executions` table (aliased `alias`): chain,
 * ticker, strategy and the creation time (`since` inclusive, `until` exclusive). A NULL parameter
 * switches its condition off, so one prepared statement serves every filter.
 *
 * @example
 * const { where, params } = executionFilterSql({ chainId: 31337, sinceMs: 0 }, 'e')
 * db.prepare(`SELECT count(*) FROM executions e WHERE ${where}`).get(params)
 */
export function executionFilterSql(filter: ReportFilter, alias: string): FilterSql {
  return {
    where: [
      `(@chain_id IS NULL OR ${alias}.chain_id = @chain_id)`,
      `(@ticker IS NULL OR ${alias}.ticker = @ticker)`,
      `(@strategy IS NULL OR ${alias}.strategy = @strategy)`,
      `(@since_ms IS NULL OR ${alias}.created_at_ms >= @since_ms)`,
      `(@until_ms IS NULL OR ${alias}.created_at_ms < @until_ms)`,
    ].join(' AND '),
    params: {
      chain_id: filter.chainId ?? null,
      ticker: filter.ticker ?? null,
      strategy: filter.strategy ?? null,
      since_ms: filter.sinceMs ?? null,
      until_ms: filter.untilMs ?? null,
    },
  }
}
