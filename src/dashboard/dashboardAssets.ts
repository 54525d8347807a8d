import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { extname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { uplotFiles } from '../report/render/uplotSource.js'

// The dashboard is static files shipped in the package (src/dashboard/static: HTML, CSS, plain ES
// modules), served as they are: no build step, no CDN. Its chart library, uPlot, is served from
// node_modules (the same build the HTML report inlines), never copied into src; the rule that rounds
// amounts for display is the client's own build (@stockroute/client/domain/displayAmount.js, a
// module that imports nothing), so the browser and the CLI round alike.

/** One file the daemon serves under /dashboard/. */
export type DashboardAsset = { contentType: string; body: string }

const contentTypes: Readonly<Record<string, string>> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
}

/**
 * The folder of the dashboard's pages, scripts and styles: beside this module (src/, dist/), or
 * dist/dashboard/static/ when this module is bundled into the CLI (dist/cli/stockroute.mjs).
 */
export const dashboardStaticDir =
  [new URL('./static/', import.meta.url), new URL('../dashboard/static/', import.meta.url)]
    .map((url) => fileURLToPath(url))
    .find((path) => existsSync(path)) ?? fileURLToPath(new URL('./static/', import.meta.url))

const require = createRequire(import.meta.url)

/**
 * Every file the dashboard serves, by URL name, read once at start: the files of
 * {@link dashboardStaticDir} with a known type, `vendor/uPlot.iife.min.js`, `vendor/uPlot.min.css`
 * from node_modules, and `vendor/displayAmount.js` from the client's build. A name not listed is a
 * 404, so no path from a request ever reaches the file system.
 *
 * @example
 * const assets = loadDashboardAssets()
 * assets.get('index.html')?.contentType // 'text/html; charset=utf-8'
 */
export function loadDashboardAssets(): ReadonlyMap<string, DashboardAsset> {
  const assets = new Map<string, DashboardAsset>()
  for (const name of readdirSync(dashboardStaticDir)) {
    const contentType = contentTypes[extname(name)]
    if (contentType)
      assets.set(name, { contentType, body: readFileSync(join(dashboardStaticDir, name), 'utf8') })
  }
  assets.set('vendor/uPlot.iife.min.js', {
    contentType: contentTypes['.js'] ?? '',
    body: readFileSync(uplotFiles.script, 'utf8'),
  })
  assets.set('vendor/uPlot.min.css', {
    contentType: contentTypes['.css'] ?? '',
    body: readFileSync(uplotFiles.style, 'utf8'),
  })
  assets.set('vendor/displayAmount.js', {
    contentType: contentTypes['.js'] ?? '',
    // The client's build: its package exports map this name to dist/domain/displayAmount.js.
    body: withoutSourceMapLink(
      readFileSync(require.resolve('@stockroute/client/domain/displayAmount.js'), 'utf8'),
    ),
  })
  return assets
}

/** A built module without its `//# sourceMappingURL` line: the map is not served. */
function withoutSourceMapLink(body: string): string {
  return body.replace(/\n\/\/# sourceMappingURL=\S+\s*$/, '\n')
}
