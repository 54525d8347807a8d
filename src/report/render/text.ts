import type { Report, ReportColumn, ReportTable } from '../types.js'
import { cellText } from './cellText.js'
import { describeFilter } from './describeFilter.js'

/** Terminal cells longer than this are cut with an ellipsis (JSON, CSV and HTML keep them whole). */
const maxCellLength = 48

const numericKinds: readonly ReportColumn['kind'][] = ['integer', 'decimal', 'percent', 'ms']

/**
 * A report as plain text for a terminal: its name and filter, each table under its title as aligned
 * columns (numbers to the right, a missing value as `-`, line breaks as spaces, long text cut), then its notes.
 *
 * @example
 * process.stdout.write(renderReportText(report))
 * // executions report, generated 2026-11-25T10:00:00.000Z (all)
 * //
 * // Executions by state
 * // STATE      EXECUTIONS  SHARE %
 * // confirmed           3      75
 * // …
 */
export function renderReportText(report: Report): string {
  const lines = [`${report.name} report, generated ${report.generatedAt} (${describeFilter(report.filter)})`]
  for (const table of report.tables) lines.push('', table.title, renderTableText(table))
  if (report.notes.length > 0) lines.push('', 'Notes:', ...report.notes.map((note) => `- ${note}`))
  return `${lines.join('\n')}\n`
}

/** One table as aligned text columns; `(none)` under the header when it has no rows. */
function renderTableText(table: ReportTable): string {
  const headers = table.columns.map((column) => headerOf(column))
  const cells = table.rows.map((row) =>
    table.columns.map((column) => {
      // One line per row: line breaks and tabs in a value become spaces.
      const text = cellText(row[column.key]).replace(/[\r\n\t]+/g, ' ')
      if (text === '') return '-'
      return text.length > maxCellLength ? `${text.slice(0, maxCellLength - 1)}…` : text
    }),
  )
  const widths = headers.map((header, index) =>
    Math.max(header.length, ...cells.map((row) => (row[index] ?? '').length)),
  )
  const line = (row: readonly string[]) =>
    table.columns
      .map((column, index) => {
        const cell = row[index] ?? ''
        const width = widths[index] ?? 0
        return numericKinds.includes(column.kind) ? cell.padStart(width) : cell.padEnd(width)
      })
      .join('  ')
      .trimEnd()
  const body = cells.length === 0 ? ['(none)'] : cells.map(line)
  return [line(headers), ...body].join('\n')
}

function headerOf(column: ReportColumn): string {
  const unit = column.kind === 'percent' ? '%' : column.kind === 'ms' ? 'ms' : column.unit
  return (unit ? `${column.title} ${unit}` : column.title).toUpperCase()
}
