import type Database from 'better-sqlite3'
import type { IncomeRow } from '../../store/income.js'
import type { ReportFilter } from '../types.js'
import { tokenScope } from './tokenScope.js'

/** An `income` row as the reports read it (`SELECT *`). */
export type IncomeReportRow = IncomeRow

/**
 * The income rows (dividends) a filter selects: chain, ticker (current or former, of the token),
 * recording time (since inclusive, until exclusive), oldest first. Income belongs to no strategy:
 * with a strategy filter there is none.
 *
 * @example
 * selectIncome(ledger.database, { chainId: 31337 }).map((row) => row.amount)
 */
export function selectIncome(database: Database.Database, filter: ReportFilter): IncomeReportRow[] {
  if (filter.strategy !== undefined) return []
  const inScope = tokenScope(database, filter)
  return database
    .prepare<Record<string, number | null>, IncomeReportRow>(
      `SELECT * FROM income WHERE (@chain_id IS NULL OR chain_id = @chain_id)
         AND (@since_ms IS NULL OR recorded_at_ms >= @since_ms) AND (@until_ms IS NULL OR recorded_at_ms < @until_ms)
       ORDER BY recorded_at_ms, id`,
    )
    .all({
      chain_id: filter.chainId ?? null,
      since_ms: filter.sinceMs ?? null,
      until_ms: filter.untilMs ?? null,
    })
    .filter((row) => inScope === undefined || inScope(row.chain_id, row.token_address))
}
