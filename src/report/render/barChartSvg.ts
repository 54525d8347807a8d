import { escapeHtml } from './escapeHtml.js'

/** What a grouped horizontal bar chart shows: one group of bars per label, one bar per series. */
export type BarChart = {
  title: string
  /** Unit shown after each value (`ms`, `bps`); empty for none. */
  unit: string
  labels: readonly string[]
  series: readonly { name: string; values: readonly (number | null)[] }[]
}

const palette = ['#3b6ea8', '#e07b39', '#5a9e4b', '#b8483e', '#7d5ba6', '#8c6d46']
const width = 760
const labelWidth = 220
const valueWidth = 90
const barHeight = 12
const groupGap = 10
const legendHeight = 22

/**
 * A grouped horizontal bar chart as an inline SVG element (no script, no external reference, no
 * xmlns needed inside HTML): labels on the left, bars from a zero line (negative values to its
 * left), each bar's value at its end, a legend of the series on top. Values are drawn as JS numbers:
 * the chart is a picture of the table beside it, which keeps the exact decimals.
 *
 * @example
 * barChartSvg({ title: 'Latency', unit: 'ms', labels: ['31337 intent → quote'], series: [{ name: 'p50', values: [41] }] })
 * // '<svg class="sr-chart" viewBox="0 0 760 …" role="img" aria-label="Latency">…</svg>'
 */
export function barChartSvg(chart: BarChart): string {
  const values = chart.series.flatMap((series) => series.values.filter((value) => value !== null))
  const low = Math.min(0, ...values)
  const high = Math.max(0, ...values)
  const span = high - low || 1
  const plot = width - labelWidth - valueWidth
  const x = (value: number) => labelWidth + ((value - low) / span) * plot
  const groupHeight = chart.series.length * barHeight + groupGap
  const height = legendHeight + chart.labels.length * groupHeight + 4
  const parts: string[] = []
  chart.series.forEach((series, index) => {
    const color = palette[index % palette.length]
    parts.push(
      `<rect x="${labelWidth + index * 110}" y="4" width="10" height="10" fill="${color}"/>`,
      `<text x="${labelWidth + index * 110 + 14}" y="13">${escapeHtml(series.name)}</text>`,
    )
  })
  const zero = x(0)
  chart.labels.forEach((label, row) => {
    const top = legendHeight + row * groupHeight
    parts.push(
      `<text x="${labelWidth - 6}" y="${top + (chart.series.length * barHeight) / 2 + 4}" text-anchor="end">${escapeHtml(label)}</text>`,
    )
    chart.series.forEach((series, index) => {
      const value = series.values[row] ?? null
      if (value === null) return
      const y = top + index * barHeight
      const start = Math.min(zero, x(value))
      const length = Math.max(Math.abs(x(value) - zero), 0.5)
      const shown = `${value}${chart.unit ? ` ${chart.unit}` : ''}`
      parts.push(
        `<rect x="${start.toFixed(1)}" y="${y}" width="${length.toFixed(1)}" height="${barHeight - 2}" fill="${palette[index % palette.length]}"><title>${escapeHtml(`${label} ${series.name}: ${shown}`)}</title></rect>`,
        `<text x="${(Math.max(zero, x(value)) + 4).toFixed(1)}" y="${y + barHeight - 3}" class="sr-value">${escapeHtml(shown)}</text>`,
      )
    })
  })
  parts.push(
    `<line x1="${zero.toFixed(1)}" y1="${legendHeight - 2}" x2="${zero.toFixed(1)}" y2="${height}" stroke="#888"/>`,
  )
  return `<svg class="sr-chart" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" role="img" aria-label="${escapeHtml(chart.title)}" font-family="sans-serif" font-size="11">${parts.join('')}</svg>`
}
