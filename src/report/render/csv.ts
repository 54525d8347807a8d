import { stringify } from 'csv-stringify/sync'
import type { Report, ReportTable } from '../types.js'
import { cellText } from './cellText.js'

/**
 * One report table as RFC 4180 CSV: a header line of the column keys, then one record per row,
 * CRLF line ends, fields quoted when they hold a comma, a quote or a line break. A null value is an
 * empty field; numbers are written in plain decimal, amounts as the report's decimal strings.
 *
 * @example
 * renderTableCsv(report.tables[0])
 * // 'state,executions,share_pct\r\nconfirmed,3,75\r\n'
 */
export function renderTableCsv(table: ReportTable): string {
  const keys = table.columns.map((column) => column.key)
  return stringify([keys, ...table.rows.map((row) => keys.map((key) => cellText(row[key])))], {
    record_delimiter: '\r\n',
    quoted_match: /^\s|\s$/,
  })
}

/**
 * A report's tables as CSV documents by table key, one per table (RFC 4180 has one table per file).
 *
 * @example
 * renderReportCsv(report).get('by_state')
 */
export function renderReportCsv(report: Report): Map<string, string> {
  return new Map(report.tables.map((table) => [table.key, renderTableCsv(table)]))
}
