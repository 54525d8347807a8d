// Latency: quote → broadcast and broadcast → inclusion of each execution over time, per chain
// (GET /v1/series/latency), above the latency report's percentiles (GET /v1/reports/latency).

import { api } from './api.js'
import { timeChart } from './charts.js'
import { card, el, row, table } from './dom.js'

export async function renderLatency(main) {
  const [{ points }, report] = await Promise.all([
    api('/v1/series/latency?limit=1000'),
    api('/v1/reports/latency'),
  ])
  const chartsBox = card('Latency over time (ms)', { id: 'latency-chart', class: 'card wide' })
  main.append(chartsBox)
  const chains = [...new Set(points.map((point) => point.chainId))].sort((a, b) => a - b)
  if (chains.length === 0) chartsBox.append(el('p', { class: 'muted' }, 'no execution reached broadcast yet'))
  const removers = chains.map((chainId) => {
    const mine = points.filter((point) => point.chainId === chainId)
    const box = el('div', { class: 'chart' })
    chartsBox.append(el('h3', {}, `chain ${chainId}`), box)
    return timeChart(box, {
      xs: mine.map((point) => point.atMs),
      unit: 'ms',
      dots: true,
      series: [
        { label: 'quote → broadcast', values: mine.map((point) => point.quoteToBroadcastMs) },
        { label: 'broadcast → inclusion', values: mine.map((point) => point.broadcastToInclusionMs) },
      ],
    })
  })
  for (const reportTable of report.tables)
    main.append(
      card(
        reportTable.title,
        { class: 'card wide' },
        table(
          reportTable.columns.map((column) => column.title),
          reportTable.rows.map((values) =>
            row(
              reportTable.columns.map((column) => ({
                text: values[column.key] ?? '–',
                class: column.kind === 'text' ? '' : 'num',
              })),
            ),
          ),
        ),
      ),
    )
  main.append(
    card(
      'Notes',
      { class: 'card wide' },
      el(
        'ul',
        {},
        report.notes.map((note) => el('li', {}, note)),
      ),
    ),
  )
  return () => {
    for (const remove of removers) remove()
  }
}
