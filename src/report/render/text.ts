import { printable } from '@stockroute/client/domain/printable.js'
import type { Report, ReportTable } from '../types.js'
import { describeFilter } from './describeFilter.js'
import { columnGap, fitTable, headerOf, numericKinds } from './fitTable.js'
import { wrapText, wrapWords } from './wrapText.js'

/** The width a terminal report fits by default: a 120-column terminal wraps none of its lines. */
export const defaultTextWidth = 120

/** How a report is laid out as terminal text. */
export type TextOptions = {
  /**
   * Every column, every value whole (`stockroute report --wide`): detail columns shown, nothing cut
   * or shortened; lines as long as the table. Default false.
   */
  wide?: boolean | undefined
  /** The width tables and prose fit unless `wide` ({@link defaultTextWidth}). */
  width?: number | undefined
}

/**
 * A report as plain text for a terminal: its name and filter, each table under its title as aligned
 * columns (numbers to the right, a missing value as `-`, line breaks as spaces), then its notes,
 * wrapped at the width. By default every line fits 120 characters: detail columns (`wide: true`)
 * are left out, hex ids shortened (`0x1234…abcd`), and a table still too wide gets two-line headers,
 * its longest text cut with `…`, and, last, fewer columns (./fitTable.ts); a line under such a table
 * names the columns `--wide` adds. With `wide`, every column and value whole (JSON, CSV and HTML
 * always are).
 *
 * @example
 * process.stdout.write(renderReportText(report))
 * // executions report, generated 2026-11-25T10:00:00.000Z (all)
 * //
 * // Executions by state
 * // STATE      EXECUTIONS  SHARE %
 * // confirmed           3      75
 * // …
 * // (2 more columns with --wide: STRATEGY, REASON CLASS)
 */
export function renderReportText(report: Report, options: TextOptions = {}): string {
  const width = options.width ?? defaultTextWidth
  const wide = options.wide ?? false
  // Values in the title and notes (a filter's ticker, a note naming one) shown as data, as in tables.
  const prose = (text: string) => wrapText(printable(text), width, '  ')
  const lines = prose(
    `${report.name} report, generated ${report.generatedAt} (${describeFilter(report.filter)})`,
  )
  for (const table of report.tables)
    lines.push('', ...prose(table.title), ...renderTableText(table, width, wide))
  if (report.notes.length > 0) lines.push('', 'Notes:', ...report.notes.flatMap((note) => prose(`- ${note}`)))
  return `${lines.join('\n')}\n`
}

/**
 * One table as aligned text lines fitting `width` (unless `wide`), then the line saying what
 * `--wide` adds; `(none)` under the header when it has no rows. The CLI's lists lay out the same way.
 *
 * @example
 * renderTableText(table, 120, false).join('\n')
 */
export function renderTableText(table: ReportTable, width: number, wide: boolean): string[] {
  const layout = fitTable(table, { width, wide })
  const line = (cells: readonly string[]) =>
    layout.columns
      .map((column, index) => {
        const cell = cells[index] ?? ''
        const cellWidth = layout.widths[index] ?? 0
        return numericKinds.includes(column.kind) ? cell.padStart(cellWidth) : cell.padEnd(cellWidth)
      })
      .join(columnGap)
      .trimEnd()
  if (layout.cells.length === 0) return [...layout.headers.map(line), '(none)']
  return [
    ...layout.headers.map(line),
    ...layout.cells.map(line),
    ...wideHint(layout.hidden.map(headerOf), layout.cut, width),
  ]
}

/** The line under a table that hides columns or cuts values: what `--wide` shows (wrapped between names). */
function wideHint(hidden: readonly string[], cut: boolean, width: number): string[] {
  const words: string[] = []
  if (hidden.length > 0)
    words.push(
      ...`${hidden.length} more column${hidden.length === 1 ? '' : 's'} with --wide:`.split(' '),
      ...hidden.map((header, index) => (index < hidden.length - 1 ? `${header},` : header)),
    )
  if (cut) {
    if (words.length > 0) words.push(`${words.pop()};`)
    words.push(...'values cut with …: whole with --wide'.split(' '))
  }
  if (words.length === 0) return []
  words[0] = `(${words[0]}`
  words.push(`${words.pop()})`)
  return wrapWords(words, width, ' ')
}
