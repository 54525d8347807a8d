// Writes test/durations.json, the test files' durations the test run orders by (longest first:
// test/setup/longestFirst.ts), from vitest's results cache of the last full run
// (node_modules/.vite/vitest/*/results.json). Run it after `npm test`: npm run test:durations.
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { durationsPath } from '../test/setup/longestFirst.js'

type CachedResults = { results: [string, { duration?: number; failed?: boolean }][] }

const repo = join(import.meta.dirname, '..')
const cacheRoot = join(repo, 'node_modules', '.vite', 'vitest')
const caches = existsSync(cacheRoot)
  ? readdirSync(cacheRoot)
      .map((name) => join(cacheRoot, name, 'results.json'))
      .filter((path) => existsSync(path))
  : []
if (caches.length === 0) {
  process.stderr.write(`no vitest results under ${cacheRoot}: run npm test first\n`)
  process.exit(1)
}
const durations: Record<string, number> = {}
for (const path of caches) {
  const cached = JSON.parse(readFileSync(path, 'utf8')) as CachedResults
  for (const [key, result] of cached.results) {
    // Keys are `<project>:<file relative to the root>`; files since removed are left out.
    const file = key.slice(key.indexOf(':') + 1)
    if (result.duration !== undefined && existsSync(join(repo, file)))
      durations[file] = Math.round(result.duration)
  }
}
const sorted = Object.fromEntries(Object.entries(durations).sort(([, a], [, b]) => b - a))
writeFileSync(durationsPath, `${JSON.stringify(sorted, null, 2)}\n`)
const top = Object.entries(sorted).slice(0, 10)
process.stdout.write(
  `${Object.keys(sorted).length} files written to ${durationsPath}; the ten longest:\n${top
    .map(([file, ms]) => `  ${(ms / 1000).toFixed(1).padStart(6)} s  ${file}`)
    .join('\n')}\n`,
)
