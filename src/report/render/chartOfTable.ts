import type { ReportColumn, ReportTable } from '../types.js'

/** What a report chart shows: one group of values per label (a row), one value per series (a measure). */
export type BarChart = {
  title: string
  /** Unit shown after each value (`ms`, `bps`); empty for none. */
  unit: string
  labels: readonly string[]
  series: readonly { name: string; values: readonly (number | null)[] }[]
}

/** Tables with more rows than this get no chart (the table is the better view). */
const maxChartRows = 40
const numericKinds: readonly ReportColumn['kind'][] = ['integer', 'decimal', 'percent', 'ms']

/**
 * The chart that pictures a report table, or undefined when none fits: a table that lists events
 * (it has a time column), has no rows or too many, or no numeric measure. The measures are the
 * columns in ms or basis points when there are some, else the first numeric column (ids are
 * labels, not measures) and those of the same kind and unit; each row is labelled by its text and
 * id columns.
 *
 * @example
 * chartOfTable(latencyReport.tables[0])
 * // { title: 'Latency per chain and stage (ms)', unit: 'ms', labels: ['31337 intent → quote', …], series: [{ name: 'p50', … }, …] }
 */
export function chartOfTable(table: ReportTable): BarChart | undefined {
  if (table.rows.length === 0 || table.rows.length > maxChartRows) return undefined
  if (table.columns.some((column) => column.kind === 'time')) return undefined
  const isId = (column: ReportColumn) => column.key === 'id' || column.key.endsWith('_id')
  const numeric = table.columns.filter((column) => numericKinds.includes(column.kind) && !isId(column))
  const timed = numeric.filter((column) => column.kind === 'ms' || column.unit === 'bps')
  const first = numeric[0]
  const measures =
    timed.length > 0
      ? timed
      : first
        ? numeric.filter((column) => column.kind === first.kind && column.unit === first.unit)
        : []
  const measure = measures[0]
  if (!measure) return undefined
  const labelColumns = table.columns.filter((column) => !numericKinds.includes(column.kind) || isId(column))
  return {
    title: table.title,
    unit: measure.kind === 'ms' ? 'ms' : measure.kind === 'percent' ? '%' : (measure.unit ?? ''),
    labels: table.rows.map((row) =>
      labelColumns
        .map((column) => row[column.key])
        .filter((value) => value !== null && value !== undefined && value !== '')
        .join(' '),
    ),
    series: measures.map((column) => ({
      name: column.title,
      values: table.rows.map((row) => {
        const value = row[column.key]
        const number = value === null || value === undefined ? Number.NaN : Number(value)
        return Number.isFinite(number) ? number : null
      }),
    })),
  }
}
