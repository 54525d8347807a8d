import type { Report } from '../types.js'

/** Where one table's CSV goes. */
export type CsvTarget = { tableKey: string; path: string }

/**
 * The files `--csv FILE` writes for a report: `FILE` itself for a report of one table; for a
 * report of several, one file per table named after the table's key, `FILE` less a `.csv`
 * extension, then `-<key>.csv` (`out.csv` → `out-by_state.csv`, `out-executions.csv`).
 *
 * @example
 * csvTargetsOf(executionsReport, 'out.csv')
 * // [{ tableKey: 'by_state', path: 'out-by_state.csv' }, { tableKey: 'by_reason', path: 'out-by_reason.csv' }, …]
 */
export function csvTargetsOf(report: Pick<Report, 'tables'>, file: string): CsvTarget[] {
  const first = report.tables[0]
  if (report.tables.length === 1 && first) return [{ tableKey: first.key, path: file }]
  const base = file.replace(/\.csv$/i, '')
  return report.tables.map((table) => ({ tableKey: table.key, path: `${base}-${table.key}.csv` }))
}
