import { createHash } from 'node:crypto'
import { chmodSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire, Module } from 'node:module'
import { homedir } from 'node:os'
import { basename, dirname, join } from 'node:path'
import { Script, constants as vmConstants } from 'node:vm'

export type LoadCliBundleParameters = {
  /** The bundle: one CommonJS file (dist/cli/stockroute.cjs, written by scripts/build.mjs). */
  bundlePath: string
  /**
   * What the process is about to run (the command's first word): each command keeps its own cache,
   * which holds the functions that command compiled.
   */
  command: string
  /** Where caches are kept; `null` keeps none. Default: {@link defaultCodeCacheDir}. */
  cacheDir?: string | null
}

export type LoadedCliBundle<Exports> = {
  exports: Exports
  /** What became of the cache: `accepted` (V8 used it), `rejected` (stale: rewritten on save), `missing`, or `off`. */
  codeCache: 'accepted' | 'rejected' | 'missing' | 'off'
  /**
   * Writes the cache when there was none or V8 rejected it: V8's code of every function compiled so
   * far, so call it at the end of the process (an `exit` listener). Never throws: without a
   * writable folder the next start just compiles again.
   */
  saveCodeCache(): void
}

/**
 * The folder code caches are kept in: `STOCKROUTE_CODE_CACHE` when set (`off` keeps none), else
 * `$XDG_CACHE_HOME/stockroute/code-cache`, else `~/.cache/stockroute/code-cache`.
 */
export function defaultCodeCacheDir(env: NodeJS.ProcessEnv = process.env): string | null {
  const fromEnv = env.STOCKROUTE_CODE_CACHE
  if (fromEnv === 'off') return null
  if (fromEnv) return fromEnv
  return join(env.XDG_CACHE_HOME || join(homedir(), '.cache'), 'stockroute', 'code-cache')
}

/**
 * Loads the CLI's bundle with V8's code cache: the compiled code of a command's functions, kept
 * from its last run, instead of parsing and compiling 4 MB of JavaScript at every start (Node 20
 * has no compile cache of its own; Node 22's `module.enableCompileCache` does this for every
 * module). A command then starts in about two thirds of the CPU: 0.26 s instead of 0.41 s for
 * `stockroute tokens`. V8 checks a cache against the source, its own version and its flags, and
 * rejects one that does not fit; the file's name also carries a hash of the bundle, so a rebuild
 * starts new caches (and removes that command's old one). Files are the user's only (folder 0700,
 * files 0600): a cache is code this process runs.
 *
 * @example
 * const cli = loadCliBundle({ bundlePath: 'dist/cli/stockroute.cjs', command: process.argv[2] ?? '' })
 * process.once('exit', cli.saveCodeCache)
 * await cli.exports.main(process.argv)
 */
export function loadCliBundle<Exports>(parameters: LoadCliBundleParameters): LoadedCliBundle<Exports> {
  const { bundlePath, command } = parameters
  const cacheDir = parameters.cacheDir === undefined ? defaultCodeCacheDir() : parameters.cacheDir
  const source = readFileSync(bundlePath, 'utf8')
  // A Node 20 without the main context's loader for import() in a vm.Script: load it plainly.
  const importModuleDynamically = vmConstants?.USE_MAIN_CONTEXT_DEFAULT_LOADER
  if (cacheDir === null || importModuleDynamically === undefined)
    return { exports: createRequire(bundlePath)(bundlePath), codeCache: 'off', saveCodeCache: () => {} }
  const prefix = `${basename(bundlePath)}-${cacheKeyOf(command)}-`
  const cachePath = join(
    cacheDir,
    `${prefix}${createHash('sha256').update(source).update(process.version).digest('hex').slice(0, 16)}.v8cache`,
  )
  const kept = readCache(cachePath)
  const cachedData = kept === 'damaged' ? undefined : kept
  const script = new Script(Module.wrap(source), {
    filename: bundlePath,
    cachedData,
    importModuleDynamically,
  })
  const module = { exports: {} as Exports }
  script.runInThisContext()(
    module.exports,
    createRequire(bundlePath),
    module,
    bundlePath,
    dirname(bundlePath),
  )
  const codeCache =
    kept === 'damaged' || script.cachedDataRejected
      ? 'rejected'
      : cachedData === undefined
        ? 'missing'
        : 'accepted'
  return {
    exports: module.exports,
    codeCache,
    saveCodeCache: () => {
      if (codeCache === 'accepted') return
      try {
        const data = script.createCachedData()
        writeOwnerOnly(cachePath, Buffer.concat([digestOf(data), data]))
        for (const name of readdirSync(cacheDir))
          if (name.startsWith(prefix) && join(cacheDir, name) !== cachePath)
            rmSync(join(cacheDir, name), { force: true })
      } catch {}
    },
  }
}

/** A command's word as part of a file name: other words (options, typos) share one cache. */
function cacheKeyOf(command: string): string {
  return /^[a-z][a-z-]{0,31}$/.test(command) ? command : 'other'
}

/**
 * A kept cache, checked against its checksum: V8 checks a cache's header (its version, the source's
 * length, the flags) but not its code in a release build, and would run a damaged one.
 */
function readCache(path: string): Buffer | 'damaged' | undefined {
  let file: Buffer
  try {
    file = readFileSync(path)
  } catch {
    return undefined
  }
  const data = file.subarray(digestLength)
  return file.length > digestLength && digestOf(data).equals(file.subarray(0, digestLength))
    ? data
    : 'damaged'
}

const digestLength = 32

function digestOf(data: Buffer): Buffer {
  return createHash('sha256').update(data).digest()
}

/** Written beside its name and renamed: a process starting meanwhile reads the old file or the new, never half. */
function writeOwnerOnly(path: string, data: Buffer): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
  chmodSync(dirname(path), 0o700)
  const partial = `${path}.${process.pid}.partial`
  writeFileSync(partial, data, { mode: 0o600 })
  renameSync(partial, path)
}
