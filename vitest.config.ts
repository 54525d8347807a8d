import { accessSync, constants } from 'node:fs'
import { join } from 'node:path'
import { defineConfig } from 'vitest/config'
import { LongestFirstSequencer } from './test/setup/longestFirst.js'

/** The workspace packages are tested from their sources (what their exports' `source` condition names), not their built dist/. */
const packageSources = [
  { name: 'client', entry: 'index' },
  { name: 'sandbox', entry: 'startSandbox' },
].flatMap(({ name, entry }) => {
  const sources = join(import.meta.dirname, 'packages', name, 'src')
  return [
    { find: new RegExp(`^@stockroute/${name}$`), replacement: join(sources, `${entry}.ts`) },
    { find: new RegExp(`^@stockroute/${name}/(.*)\\.js$`), replacement: `${sources}/$1.ts` },
  ]
})

// Sandbox chains are deployed once per run and loaded from this cache afterwards, by the test
// processes and by every daemon they start (packages/sandbox/src/chainStateCache.ts); kept inside the
// clone rather than in the user's ~/.cache.
process.env.STOCKROUTE_SANDBOX_CACHE ??= join(
  import.meta.dirname,
  'node_modules',
  '.cache',
  'stockroute',
  'sandbox-chains',
)

// The CLI's compiled code, kept per command by every CLI process the tests start (src/cli/loadCliBundle.ts).
process.env.STOCKROUTE_CODE_CACHE ??= join(
  import.meta.dirname,
  'node_modules',
  '.cache',
  'stockroute',
  'code-cache',
)

// Temporary files (ledgers, daemons' data folders) on tmpfs where the machine has one: what the tests
// check holds on any file system, and this machine's disk makes every SQLite fsync wait (the ledger
// files' tests ran 25-30% faster on /dev/shm). TMPDIR set by the caller is kept.
if (!process.env.TMPDIR && isWritableFolder('/dev/shm')) process.env.TMPDIR = '/dev/shm'

export default defineConfig({
  resolve: { alias: packageSources },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/setup/localChains.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Test files share a worker's modules instead of importing the sources anew each (about 1 s of
    // CPU a file, 180 s a run): module state must not leak between files, as it must not between
    // two engines or daemons in one process.
    isolate: false,
    // Two cores, but the process tests spend much of their time waiting on children and chains.
    maxWorkers: 3,
    // The longest files first (test/durations.json), so that none starts last and holds the run up.
    sequence: { sequencer: LongestFirstSequencer },
  },
})

function isWritableFolder(path: string): boolean {
  try {
    accessSync(path, constants.W_OK | constants.X_OK)
    return true
  } catch {
    return false
  }
}
