import { printable } from '@stockroute/client/domain/printable.js'
import type { ReportColumn, ReportTable } from '../types.js'
import { cellText } from './cellText.js'

// How a report table is laid out on a terminal (./text.ts): which columns, how wide, with one or
// two header lines, which values are cut. By default it fits `width` characters; with `wide`, every
// column and every value whole.

/** The kinds shown right-aligned, and never cut. */
export const numericKinds: readonly ReportColumn['kind'][] = ['integer', 'decimal', 'percent', 'ms']

/** A table laid out for the terminal: the columns shown, their widths, header lines and cells. */
export type TableLayout = {
  columns: readonly ReportColumn[]
  widths: readonly number[]
  /** The header as lines (one or two), each a cell per shown column; a short header sits on the last line. */
  headers: readonly (readonly string[])[]
  /** Per row, a cell per shown column, each at most its column's width. */
  cells: readonly (readonly string[])[]
  /** The columns left out (detail columns, then those that did not fit), in table order. */
  hidden: readonly ReportColumn[]
  /** Whether some value is shown cut or shortened (with `…`). */
  cut: boolean
}

/** Separator between columns. */
export const columnGap = '  '

/** A text column is never cut narrower than this (nor than its header). */
const minTextWidth = 10

/** Runs of hex digits this long or longer (tx hashes, addresses, quote ids) are shortened to `0x1234…abcd`. */
const longHex = /0x[0-9a-fA-F]{16,}/g

/**
 * Lays `table` out within `width` characters, unless `wide`. Detail columns (`wide: true`) are
 * left out, times shown to the second, long hex strings shortened (`0x1234…abcd`); then, while
 * the table is wider than `width`: long headers take two lines, the widest text columns are cut
 * (with `…`, never below ten characters or their header), and at last columns are left out from
 * the right. Numbers and times are never cut. With `wide`: every column, every value whole, one
 * header line.
 *
 * @example
 * const layout = fitTable(report.tables[0], { width: 120, wide: false })
 * layout.hidden.map((column) => column.key) // ['fee', 'tx_hash']
 */
export function fitTable(table: ReportTable, options: { width: number; wide: boolean }): TableLayout {
  const shown = options.wide ? [...table.columns] : table.columns.filter((column) => !column.wide)
  const texts = new Map(
    shown.map((column) => [
      column,
      table.rows.map((row) => displayText(cellText(row[column.key]), column, options.wide)),
    ]),
  )
  const valueWidths = new Map(
    shown.map((column) => [
      column,
      (texts.get(column) ?? []).reduce((max, text) => Math.max(max, text.length), 0),
    ]),
  )
  const valueWidth = (column: ReportColumn) => valueWidths.get(column) ?? 0
  const oneLine = (columns: readonly ReportColumn[]) =>
    columns.map((column) => Math.max(valueWidth(column), headerOf(column).length))
  if (options.wide) return layoutOf(table, shown, texts, oneLine(shown), 1)
  for (;;) {
    if (totalWidth(oneLine(shown)) <= options.width) return layoutOf(table, shown, texts, oneLine(shown), 1)
    // Two header lines, where that narrows a column.
    const widths = shown.map((column) => Math.max(valueWidth(column), headerWidth(column, 2)))
    const minimum = shown.map((column, index) =>
      column.kind === 'text'
        ? Math.max(headerWidth(column, 2), Math.min(valueWidth(column), minTextWidth))
        : (widths[index] ?? 0),
    )
    if (totalWidth(minimum) > options.width && shown.length > 1) {
      shown.pop()
      continue
    }
    // Cut the widest text column by one character at a time until the table fits.
    while (totalWidth(widths) > options.width) {
      let widest = -1
      widths.forEach((width, index) => {
        if (width > (minimum[index] ?? 0) && (widest < 0 || width > (widths[widest] ?? 0))) widest = index
      })
      if (widest < 0) break
      widths[widest] = (widths[widest] ?? 0) - 1
    }
    return layoutOf(table, shown, texts, widths, 2)
  }
}

/** A column's header: its title and unit, upper case. */
export function headerOf(column: ReportColumn): string {
  const unit = column.kind === 'percent' ? '%' : column.kind === 'ms' ? 'ms' : column.unit
  return (unit ? `${column.title} ${unit}` : column.title).toUpperCase()
}

/** The table laid out at `widths`: headers on up to `lines` lines (where a column needs two), cells cut to fit. */
function layoutOf(
  table: ReportTable,
  columns: readonly ReportColumn[],
  texts: ReadonlyMap<ReportColumn, readonly string[]>,
  widths: readonly number[],
  lines: 1 | 2,
): TableLayout {
  // A shortened hex string counts as cut.
  let cut = columns.some(
    (column) =>
      column.kind === 'text' &&
      table.rows.some((row, at) => texts.get(column)?.[at] !== lineOf(cellText(row[column.key]))),
  )
  const headerCells = columns.map((column, index): [string, string] => {
    const header = headerOf(column)
    return lines === 2 && header.length > (widths[index] ?? 0) ? splitHeader(header) : ['', header]
  })
  const headers = headerCells.some(([first]) => first !== '')
    ? [headerCells.map(([first]) => first), headerCells.map(([, second]) => second)]
    : [headerCells.map(([, second]) => second)]
  const cells = table.rows.map((_, row) =>
    columns.map((column, index) => {
      const text = texts.get(column)?.[row] ?? ''
      const width = widths[index] ?? 0
      if (text.length <= width) return text
      cut = true
      return `${cutBefore(text, Math.max(width - 1, 0))}…`
    }),
  )
  const hidden = table.columns.filter((column) => !columns.includes(column))
  return { columns, widths, headers, cells, hidden, cut }
}

/**
 * The first `length` characters of `text`, less a shortened hex id (`0x1234…abcd`) the cut would
 * split: `0xa5a2…0…` reads as a fault, `settled by…` as a cut.
 *
 * @example
 * cutBefore('settled by 0xa5a2…9d06', 18) // 'settled by'
 */
function cutBefore(text: string, length: number): string {
  const kept = text.slice(0, length)
  const head = /\S*$/.exec(kept)?.[0] ?? ''
  const tail = /^\S*/.exec(text.slice(length))?.[0] ?? ''
  const splitsShortened = head !== '' && tail !== '' && `${head}${tail}`.includes('…')
  return splitsShortened ? kept.slice(0, kept.length - head.length).trimEnd() : kept
}

/**
 * A value as one terminal line (see {@link lineOf}); unless wide, a time to the second
 * (`2026-11-25T10:00:05Z`) and long hex in text shortened (`0x1234…abcd`).
 */
function displayText(text: string, column: ReportColumn, wide: boolean): string {
  const line = lineOf(text)
  if (wide) return line
  if (column.kind === 'time') return line.replace(/^(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d)\.\d+Z$/, '$1Z')
  if (column.kind !== 'text') return line
  return line.replace(longHex, (hex) => `${hex.slice(0, 6)}…${hex.slice(-4)}`)
}

/**
 * A value on one line, as data: each run of line breaks and tabs as a space, every other character
 * a terminal would act on (ESC, other controls, bidirectional overrides) escaped by `printable`,
 * empty as `-`.
 */
function lineOf(text: string): string {
  const line = printable(text.replace(/[\r\n\t]+/g, ' '))
  return line === '' ? '-' : line
}

/** The width of a column's header on `lines` lines (two: split at the space that makes it narrowest). */
function headerWidth(column: ReportColumn, lines: 1 | 2): number {
  const header = headerOf(column)
  return lines === 1 ? header.length : Math.max(...splitHeader(header).map((part) => part.length))
}

/** A header on two lines, split at the space that makes the wider line narrowest; `['', header]` without a space. */
function splitHeader(header: string): [string, string] {
  let best: [string, string] = ['', header]
  for (let at = header.indexOf(' '); at >= 0; at = header.indexOf(' ', at + 1)) {
    const split: [string, string] = [header.slice(0, at), header.slice(at + 1)]
    if (Math.max(split[0].length, split[1].length) < Math.max(best[0].length, best[1].length)) best = split
  }
  return best
}

function totalWidth(widths: readonly number[]): number {
  return widths.reduce((sum, width) => sum + width, 0) + columnGap.length * Math.max(widths.length - 1, 0)
}
