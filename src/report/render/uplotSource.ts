import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'

// uPlot (MIT, ~50 kB, canvas) is the chart library of the HTML report and the dashboard: small, fast
// on long time series, no dependency, and its licence asks only that the notice stay with the code.
// The report page inlines it, read from node_modules at render time, so the file fetches nothing.

const require = createRequire(import.meta.url)

/** Where the installed uPlot's browser build and stylesheet are. */
export const uplotFiles = {
  script: require.resolve('uplot/dist/uPlot.iife.min.js'),
  style: require.resolve('uplot/dist/uPlot.min.css'),
} as const

let cached: { script: string; style: string } | undefined

/**
 * The installed uPlot's browser build (defines the global `uPlot`) and its stylesheet, made safe to
 * inline in a `<script>` / `<style>` element (a `</` could otherwise end the element early).
 *
 * @example
 * const { script, style } = uplotSource()
 * page = `<style>${style}</style><script>${script}</script>`
 */
export function uplotSource(): { script: string; style: string } {
  cached ??= {
    script: readFileSync(uplotFiles.script, 'utf8').replaceAll('</', '<\\/'),
    style: readFileSync(uplotFiles.style, 'utf8').replaceAll('</', '<\\/'),
  }
  return cached
}
