/** How a column is aligned: text to the left, numbers to the right. */
export type ColumnAlign = 'left' | 'right'

export type TableColumn = { header: string; align?: ColumnAlign }

/**
 * Renders rows as a plain-text table: a header line, then one line per row, each column as wide as
 * its widest cell, columns two spaces apart, trailing spaces trimmed.
 *
 * @example
 * formatTable([{ header: 'TICKER' }, { header: 'LOT', align: 'right' }], [['0700', '100'], ['0005', '400']])
 * // 'TICKER  LOT\n0700    100\n0005    400'
 */
export function formatTable(columns: readonly TableColumn[], rows: readonly (readonly string[])[]): string {
  const widths = columns.map((column, index) =>
    Math.max(column.header.length, ...rows.map((row) => (row[index] ?? '').length)),
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
  return [line(columns.map((column) => column.header)), ...rows.map(line)].join('\n')
}

/** One line of a labelled block: the label, then its value. */
export type LabelledRow = readonly [label: string, value: string]

/**
 * Renders label/value rows as indented lines, every value starting in the same column: at least
 * `minWidth` wide, and always at least one space past the longest label, so a label as long as the
 * column never runs into its value.
 *
 * @example
 * formatLabelledRows([['gas', '135339'], ['simulation', 'simulated']])
 * // ['  gas        135339', '  simulation simulated']
 */
export function formatLabelledRows(rows: readonly LabelledRow[], minWidth = 10): string[] {
  const width = Math.max(minWidth, ...rows.map(([label]) => label.length + 1))
  return rows.map(([label, value]) => `  ${label.padEnd(width)}${value}`)
}
