// Time-series charts with uPlot (global, loaded by index.html from the daemon): small and fast on
// long series, canvas drawn, and its legend writes labels with textContent.

import { amountText } from './amounts.js'
import { el } from './dom.js'

const palette = ['#3b6ea8', '#e07b39', '#5a9e4b', '#b8483e', '#7d5ba6', '#8c6d46']

/**
 * Draws a time chart into `box`: `xs` are Unix ms, each series `{ label, values }` aligned with them
 * (null for a gap), with `texts` when the values are amounts: the API's exact decimal strings, which
 * the legend shows rounded for display (the values, JS numbers, only place the line). Resizes with
 * the box. Returns a function that removes the chart. The box says what the canvas holds, for a
 * script or a test: `data-points` (how many instants) and `data-first-ms` (the first one).
 * @example const remove = timeChart(box, { xs, series: [{ label: 'p50', values }], unit: 'ms' })
 */
export function timeChart(box, { xs, series, unit = '', dots = false }) {
  box.dataset.points = String(xs.length)
  if (xs.length === 0) {
    box.append(el('p', { class: 'muted' }, 'nothing to chart yet'))
    return () => undefined
  }
  box.dataset.firstMs = String(xs[0])
  const width = () => Math.max(240, Math.min(box.clientWidth || 320, 1200))
  const lone = xs.every((ms) => ms === xs[0]) ? xs[0] / 1000 : undefined
  const options = {
    width: width(),
    height: 220,
    // A lone instant (uPlot would stretch it over 1000 days) or a burst within a minute gets an hour
    // around it.
    scales: {
      x: {
        time: true,
        range: (_u, min, max) =>
          lone !== undefined
            ? [lone - 1800, lone + 1800]
            : max - min < 60
              ? [min - 1800, max + 1800]
              : [min, max],
      },
    },
    axes: [{}, { label: unit, size: 60 }],
    series: [
      {},
      ...series.map((one, index) => ({
        label: one.label,
        stroke: palette[index % palette.length],
        width: 2,
        spanGaps: true,
        ...(one.texts ? { value: (_plot, raw, _series, index) => legendAmount(one.texts, raw, index) } : {}),
        ...(dots
          ? { paths: () => null, points: { show: true, size: 7, fill: palette[index % palette.length] } }
          : {}),
      })),
    ],
  }
  const plot = new globalThis.uPlot(
    options,
    [xs.map((ms) => ms / 1000), ...series.map((one) => one.values)],
    box,
  )
  const observer = new ResizeObserver(() => plot.setSize({ width: width(), height: 220 }))
  observer.observe(box)
  return () => {
    observer.disconnect()
    plot.destroy()
  }
}

/** The legend's figure of an amount series at `index`: its exact text, rounded for display. */
function legendAmount(texts, raw, index) {
  if (raw === null || raw === undefined || index === null || index === undefined) return '–'
  return amountText(texts[index])
}
