import type { Report, ReportColumn, ReportTable } from '../types.js'
import { cellText } from './cellText.js'
import { chartOfTable } from './chartOfTable.js'
import { describeFilter } from './describeFilter.js'
import { escapeHtml } from './escapeHtml.js'
import { reportChartScript } from './reportChartScript.js'
import { uplotSource } from './uplotSource.js'

const numericKinds: readonly ReportColumn['kind'][] = ['integer', 'decimal', 'percent', 'ms']

/** The style of report fragments, scoped to `.sr-report`: a page or a dashboard includes it once. */
export const reportStyles = `
.sr-report { font-family: system-ui, sans-serif; color: #1d2430; margin: 1.5rem 0; }
.sr-report h2 { font-size: 1.4rem; margin: 0 0 .25rem; }
.sr-report h3 { font-size: 1.1rem; margin: 1.5rem 0 .5rem; }
.sr-report .sr-meta { color: #5b6472; margin: 0 0 1rem; }
.sr-report .sr-scroll { overflow-x: auto; }
.sr-report table { border-collapse: collapse; font-size: .85rem; }
.sr-report th, .sr-report td { border-bottom: 1px solid #dde1e7; padding: .25rem .6rem; text-align: left; white-space: nowrap; }
.sr-report th { background: #f3f5f8; }
.sr-report td.sr-num, .sr-report th.sr-num { text-align: right; font-variant-numeric: tabular-nums; }
.sr-report td.sr-null { color: #9aa1ab; }
.sr-report .sr-chart { max-width: 100%; overflow-x: auto; margin: .5rem 0; min-height: 2rem; }
.sr-report .sr-notes { color: #3d4552; font-size: .85rem; }
`

/**
 * A report as an HTML fragment, a `<section class="sr-report">` with no script and no external
 * reference: its title and filter, each table under its title with a chart container when a chart
 * fits (see chartOfTable; `<div class="sr-chart" data-chart="JSON">`, drawn by the page's uPlot
 * script), and its notes. Pair it with {@link reportStyles} (a dashboard embeds fragments in its own
 * page); {@link renderReportPage} makes a whole file.
 *
 * @example
 * dashboard.innerHTML = renderReportHtml(report)
 */
export function renderReportHtml(report: Report): string {
  const parts = [
    `<section class="sr-report" data-report="${escapeHtml(report.name)}">`,
    `<h2>${escapeHtml(report.name)} report</h2>`,
    `<p class="sr-meta">Generated ${escapeHtml(report.generatedAt)} · ${escapeHtml(describeFilter(report.filter))}</p>`,
  ]
  for (const table of report.tables) {
    parts.push(`<h3 id="${escapeHtml(`${report.name}-${table.key}`)}">${escapeHtml(table.title)}</h3>`)
    const chart = chartOfTable(table)
    if (chart)
      parts.push(
        `<div class="sr-chart" role="img" aria-label="${escapeHtml(chart.title)}" data-chart="${escapeHtml(JSON.stringify(chart))}"></div>`,
      )
    parts.push(tableHtml(table))
  }
  if (report.notes.length > 0)
    parts.push(
      '<h3>Notes</h3>',
      `<ul class="sr-notes">${report.notes.map((note) => `<li>${escapeHtml(note)}</li>`).join('')}</ul>`,
    )
  parts.push('</section>')
  return parts.join('\n')
}

/**
 * A report as one self-contained HTML page, for `stockroute report <name> --html FILE`: styles,
 * uPlot (read from node_modules now) and the chart script all inline, and a Content-Security-Policy
 * that lets the page fetch nothing at all when it is viewed.
 *
 * @example
 * writeFileSync('fills.html', renderReportPage(report))
 */
export function renderReportPage(report: Report): string {
  const uplot = uplotSource()
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'">
<title>stockroute ${escapeHtml(report.name)} report</title>
<style>${uplot.style}</style>
<style>${reportStyles}</style>
</head>
<body>
${renderReportHtml(report)}
<script>${uplot.script}</script>
<script>${reportChartScript}</script>
</body>
</html>
`
}

function tableHtml(table: ReportTable): string {
  const numeric = (column: ReportColumn) => numericKinds.includes(column.kind)
  const head = table.columns
    .map((column) => {
      const unit = column.kind === 'percent' ? '%' : column.kind === 'ms' ? 'ms' : column.unit
      const title = unit ? `${column.title} (${unit})` : column.title
      return `<th${numeric(column) ? ' class="sr-num"' : ''} scope="col">${escapeHtml(title)}</th>`
    })
    .join('')
  const body =
    table.rows.length === 0
      ? `<tr><td colspan="${table.columns.length}" class="sr-null">none</td></tr>`
      : table.rows
          .map(
            (row) =>
              `<tr>${table.columns
                .map((column) => {
                  const text = cellText(row[column.key])
                  const classes = [numeric(column) ? 'sr-num' : '', text === '' ? 'sr-null' : '']
                    .filter(Boolean)
                    .join(' ')
                  return `<td${classes ? ` class="${classes}"` : ''}>${text === '' ? '–' : escapeHtml(text)}</td>`
                })
                .join('')}</tr>`,
          )
          .join('\n')
  return `<div class="sr-scroll"><table data-table="${escapeHtml(table.key)}">
<thead><tr>${head}</tr></thead>
<tbody>
${body}
</tbody>
</table></div>`
}
