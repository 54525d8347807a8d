import { printable } from '@stockroute/client/domain/printable.js'
import { defaultTextWidth, renderTableText } from '../report/render/text.js'
import type { ReportTable } from '../report/types.js'

/** How a column is aligned: text to the left, numbers to the right. */
export type ColumnAlign = 'left' | 'right'

export type TableColumn = { header: string; align?: ColumnAlign }

/**
 * Renders rows as a plain-text table: a header line, then one line per row, each column as wide as
 * its widest cell, columns two spaces apart, trailing spaces trimmed. Every cell is shown as data
 * (`printable`: a line break in a value is `\n`, never a line of its own).
 *
 * @example
 * formatTable([{ header: 'TICKER' }, { header: 'LOT', align: 'right' }], [['0700', '100'], ['0005', '400']])
 * // 'TICKER  LOT\n0700    100\n0005    400'
 */
export function formatTable(columns: readonly TableColumn[], rows: readonly (readonly string[])[]): string {
  const shown = rows.map((row) => row.map(printable))
  const headers = columns.map((column) => printable(column.header))
  const widths = columns.map((_column, index) =>
    Math.max(headers[index]?.length ?? 0, ...shown.map((row) => (row[index] ?? '').length)),
  )
  const line = (cells: readonly string[]) =>
    columns
      .map((column, index) => {
        const cell = cells[index] ?? ''
        const width = widths[index] ?? 0
        return column.align === 'right' ? cell.padStart(width) : cell.padEnd(width)
      })
      .join('  ')
      .trimEnd()
  return [line(headers), ...shown.map(line)].join('\n')
}

/** One line of a labelled block: the label, then its value. */
export type LabelledRow = readonly [label: string, value: string]

/**
 * Renders label/value rows as indented lines, every value starting in the same column: at least
 * `minWidth` wide, and always at least one space past the longest label, so a label as long as the
 * column never runs into its value. Each value is shown as data (`printable`).
 *
 * @example
 * formatLabelledRows([['gas', '135339'], ['simulation', 'simulated']])
 * // ['  gas        135339', '  simulation simulated']
 */
export function formatLabelledRows(rows: readonly LabelledRow[], minWidth = 10): string[] {
  const width = Math.max(minWidth, ...rows.map(([label]) => label.length + 1))
  return rows.map(([label, value]) => `  ${label.padEnd(width)}${printable(value)}`)
}

/** A column of a list that fits the terminal: `wide` ones only with --wide, `time` ones to the second. */
export type FittedColumn = TableColumn & { wide?: true; time?: true }

/**
 * Renders a list the way reports are laid out (../report/render/text.ts): within 120 columns
 * unless `wide`, its `wide` columns left out, hex ids shortened (`0x1234…abcd`), times to the
 * second, the longest text cut with `…`, and a line saying what `--wide` adds. With `wide`, every
 * column and value whole.
 *
 * @example
 * formatFittedTable([{ header: 'ID', align: 'right' }, { header: 'REASON' }], rows, { wide: false })
 */
export function formatFittedTable(
  columns: readonly FittedColumn[],
  rows: readonly (readonly string[])[],
  options: { wide?: boolean | undefined },
): string {
  const table: ReportTable = {
    key: 'list',
    title: '',
    columns: columns.map((column, index) => ({
      key: String(index),
      title: column.header,
      kind: column.time ? 'time' : column.align === 'right' ? 'integer' : 'text',
      ...(column.wide ? { wide: true as const } : {}),
    })),
    rows: rows.map((row) => Object.fromEntries(row.map((cell, index) => [String(index), cell]))),
  }
  return renderTableText(table, defaultTextWidth, options.wide ?? false).join('\n')
}
