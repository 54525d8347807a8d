// The cached bench ledger: where it lives (a RAM disk when there is one with room), whether the file
// there can be reused (same generator version and size, described by a `.json` beside it), and its
// generation when it cannot: into a temporary name, validated, then renamed, so that an interrupted
// run leaves no half-written cache.

import {
  existsSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statfsSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { tmpdir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { openLedger } from '../../src/store/openLedger.js'
import { generateLedger, generatorVersion, type LedgerMeta } from './ledgerGenerator.js'
import { validateLedger } from './validateLedger.js'

/** Bytes the generated file takes per fill (measured: ~3.7 KB at 100k and 1M fills, events stream off). */
export const bytesPerFill = 3_800

/**
 * Where the cached ledger lives: `STOCKROUTE_BENCH_DIR` when set, else a RAM disk (/dev/shm) when
 * there is one with room, else the temp folder. A RAM disk first because the file is ~3.8 GB at
 * 1M fills and the shared disk of the bench machine had less than that free (the first run died
 * with SQLITE_FULL); reads hit the page cache either way once warm.
 */
export function benchLedgerDirectory(fills: number): string {
  const chosen = process.env.STOCKROUTE_BENCH_DIR
  if (chosen) return chosen
  const needed = fills * bytesPerFill * 1.2
  try {
    const shm = statfsSync('/dev/shm')
    if (shm.bavail * shm.bsize > needed + 4e9) return '/dev/shm'
  } catch {}
  return tmpdir()
}

/** The cached ledger's path for a size (the default size has the short name). */
export function benchLedgerPath(fills: number, directory = benchLedgerDirectory(fills)): string {
  const size = fills === 1_000_000 ? '' : `-${fills}`
  return join(directory, `stockroute-bench-report-v${generatorVersion}${size}.sqlite`)
}

/** Refuses to start a file that would fill the disk (the machine is shared). */
function assertRoom(path: string, fills: number): void {
  const needed = fills * bytesPerFill * 1.2
  const { bavail, bsize } = statfsSync(dirname(path))
  const free = bavail * bsize
  if (free < needed + 1e9)
    throw new Error(
      `Not enough room for the bench ledger in ${dirname(path)}: ${fills.toLocaleString('en')} fills need about ${(needed / 1e9).toFixed(1)} GB and ${(free / 1e9).toFixed(1)} GB are free (1 GB is kept for others). Set STOCKROUTE_BENCH_DIR to a folder with room, or pass --fills with fewer fills.`,
    )
}

/** Reads the cached ledger's description, if the file is there and of this generator version. */
export function readCachedMeta(path: string, fills: number): LedgerMeta | undefined {
  if (!existsSync(path) || !existsSync(`${path}.json`)) return undefined
  try {
    const meta = JSON.parse(readFileSync(`${path}.json`, 'utf8')) as LedgerMeta
    return meta.generatorVersion === generatorVersion && meta.fills === fills ? meta : undefined
  } catch {
    return undefined
  }
}

/**
 * The benchmark's ledger: the cached file when present with this generator version and size, else
 * generated (into a temporary name, renamed when complete, so an interrupted run leaves no
 * half-written cache).
 */
export function ensureBenchLedger(options: {
  fills: number
  regenerate?: boolean | undefined
  path?: string | undefined
  validate?: 'sample' | 'full' | 'none' | undefined
  log?: ((message: string) => void) | undefined
}): { path: string; meta: LedgerMeta; generated: boolean } {
  const path = options.path ?? benchLedgerPath(options.fills)
  const log = options.log ?? (() => {})
  const cached = options.regenerate ? undefined : readCachedMeta(path, options.fills)
  if (cached) {
    log(
      `reusing ${path} (generator v${generatorVersion}, ${cached.fills.toLocaleString('en')} fills); --regenerate to rebuild`,
    )
    // A ledger generated under an older schema is migrated once, as a daemon would (new indices).
    const ledger = openLedger({ path, owner: false })
    ledger.close()
    return { path, meta: cached, generated: false }
  }
  for (const suffix of ['', '-wal', '-shm', '.json']) rmSync(`${path}${suffix}`, { force: true })
  removeStalePartials(path)
  assertRoom(path, options.fills)
  const partial = `${path}.partial-${process.pid}`
  log(`generating ${options.fills.toLocaleString('en')} fills into ${path}`)
  try {
    const meta = generateLedger({ path: partial, fills: options.fills, log })
    log(
      `generated in ${(meta.generatedInMs / 1000).toFixed(1)} s: ${(statSync(partial).size / 1e6).toFixed(0)} MB`,
    )
    const validation = options.validate ?? 'sample'
    if (validation !== 'none') validateLedger(partial, validation, log)
    for (const suffix of ['-wal', '-shm']) rmSync(`${partial}${suffix}`, { force: true })
    renameSync(partial, path)
    writeFileSync(`${path}.json`, `${JSON.stringify(meta, null, 2)}\n`)
    return { path, meta, generated: true }
  } finally {
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${partial}${suffix}`, { force: true })
  }
}

/** Partial files of generator runs that were killed (their process is gone): several GB each. */
function removeStalePartials(path: string): void {
  const folder = dirname(path)
  const prefix = `${basename(path)}.partial-`
  for (const name of readdirSync(folder)) {
    if (!name.startsWith(prefix)) continue
    const pid = Number.parseInt(name.slice(prefix.length), 10)
    let alive = false
    try {
      process.kill(pid, 0)
      alive = true
    } catch {}
    if (!alive) rmSync(join(folder, name), { force: true })
  }
}
