import { spawnSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { defaultCodeCacheDir, loadCliBundle } from '../../src/cli/loadCliBundle.js'
import { repoRoot } from '../helpers/processes.js'

// The CLI's bundle loaded with V8's code cache: kept per command, used when it fits, rewritten when
// V8 rejects it or the bundle changes, and never in the way of the command itself.

const folder = mkdtempSync(join(tmpdir(), 'stockroute-code-cache-'))
afterAll(() => rmSync(folder, { recursive: true, force: true }))

/** A CommonJS bundle in the shape scripts/build.mjs writes: exports and a dynamic import of a built-in. */
function writeBundle(name: string, answer: number): string {
  const path = join(folder, name)
  writeFileSync(
    path,
    `exports.answer = () => ${answer};\nexports.file = __filename;\nexports.platform = () => import('node:os').then((os) => os.platform());\n`,
  )
  return path
}

const cacheFiles = (dir: string) => readdirSync(dir).filter((name) => name.endsWith('.v8cache'))

type Bundle = { answer(): number; file: string; platform(): Promise<string> }

describe('loadCliBundle', () => {
  it('runs the bundle without a cache, keeps one (folder 0700, file 0600), and V8 accepts it at the next load', async () => {
    const bundlePath = writeBundle('first.cjs', 42)
    const cacheDir = join(folder, 'cache-first')
    const first = loadCliBundle<Bundle>({ bundlePath, command: 'swap', cacheDir })
    expect(first.codeCache).toBe('missing')
    expect(first.exports.answer()).toBe(42)
    expect(first.exports.file).toBe(bundlePath)
    // import() inside the bundle goes through Node's own loader.
    expect(await first.exports.platform()).toBe(process.platform)
    first.saveCodeCache()
    const [file] = cacheFiles(cacheDir)
    expect(file).toMatch(/^first\.cjs-swap-[0-9a-f]{16}\.v8cache$/)
    expect(statSync(cacheDir).mode & 0o777).toBe(0o700)
    expect(statSync(join(cacheDir, file as string)).mode & 0o777).toBe(0o600)
    const second = loadCliBundle<Bundle>({ bundlePath, command: 'swap', cacheDir })
    expect(second.codeCache).toBe('accepted')
    expect(second.exports.answer()).toBe(42)
    // Another command keeps a cache of its own.
    expect(loadCliBundle<Bundle>({ bundlePath, command: 'report', cacheDir }).codeCache).toBe('missing')
  })

  it('a damaged cache is rejected by V8, the bundle still runs, and the cache is written again', () => {
    const bundlePath = writeBundle('damaged.cjs', 7)
    const cacheDir = join(folder, 'cache-damaged')
    loadCliBundle<Bundle>({ bundlePath, command: 'tokens', cacheDir }).saveCodeCache()
    const path = join(cacheDir, cacheFiles(cacheDir)[0] as string)
    const good = readFileSync(path)
    writeFileSync(path, Buffer.from(good.map((byte, index) => (index > 64 ? byte ^ 0xff : byte))))
    const loaded = loadCliBundle<Bundle>({ bundlePath, command: 'tokens', cacheDir })
    expect(loaded.codeCache).toBe('rejected')
    expect(loaded.exports.answer()).toBe(7)
    loaded.saveCodeCache()
    expect(loadCliBundle<Bundle>({ bundlePath, command: 'tokens', cacheDir }).codeCache).toBe('accepted')
  })

  it("a rebuilt bundle starts a new cache and removes that command's old one", () => {
    const bundlePath = writeBundle('rebuilt.cjs', 1)
    const cacheDir = join(folder, 'cache-rebuilt')
    loadCliBundle<Bundle>({ bundlePath, command: 'quote', cacheDir }).saveCodeCache()
    loadCliBundle<Bundle>({ bundlePath, command: 'market', cacheDir }).saveCodeCache()
    const before = cacheFiles(cacheDir)
    writeBundle('rebuilt.cjs', 2)
    const loaded = loadCliBundle<Bundle>({ bundlePath, command: 'quote', cacheDir })
    expect(loaded.codeCache).toBe('missing')
    expect(loaded.exports.answer()).toBe(2)
    loaded.saveCodeCache()
    const after = cacheFiles(cacheDir)
    expect(after).toHaveLength(2)
    expect(after.filter((name) => name.includes('-market-'))).toEqual(
      before.filter((name) => name.includes('-market-')),
    )
    expect(after.filter((name) => name.includes('-quote-'))).not.toEqual(
      before.filter((name) => name.includes('-quote-')),
    )
  })

  it('options and unknown words share one cache; a folder it cannot write leaves the command working', () => {
    const bundlePath = writeBundle('words.cjs', 3)
    const cacheDir = join(folder, 'cache-words')
    for (const command of ['--version', 'Swap!', ''])
      loadCliBundle<Bundle>({ bundlePath, command, cacheDir }).saveCodeCache()
    expect(cacheFiles(cacheDir).map((name) => name.split('-')[1])).toEqual(['other'])
    // A file where the folder should be: nothing is written, nothing is thrown.
    const blocked = join(folder, 'blocked')
    writeFileSync(blocked, '')
    const loaded = loadCliBundle<Bundle>({ bundlePath, command: 'swap', cacheDir: join(blocked, 'cache') })
    expect(loaded.exports.answer()).toBe(3)
    expect(() => loaded.saveCodeCache()).not.toThrow()
  })

  it('STOCKROUTE_CODE_CACHE names the folder or turns the cache off; XDG_CACHE_HOME is the default', () => {
    expect(defaultCodeCacheDir({ STOCKROUTE_CODE_CACHE: 'off' })).toBeNull()
    expect(defaultCodeCacheDir({ STOCKROUTE_CODE_CACHE: '/x/y' })).toBe('/x/y')
    expect(defaultCodeCacheDir({ XDG_CACHE_HOME: '/c' })).toBe('/c/stockroute/code-cache')
    const bundlePath = writeBundle('off.cjs', 4)
    const loaded = loadCliBundle<Bundle>({ bundlePath, command: 'swap', cacheDir: null })
    expect(loaded.codeCache).toBe('off')
    expect(loaded.exports.answer()).toBe(4)
  })

  it('the built CLI keeps a cache per command in STOCKROUTE_CODE_CACHE, runs from it, and keeps none for a mistyped command', () => {
    const cacheDir = join(folder, 'cache-cli')
    const run = () =>
      spawnSync(
        process.execPath,
        ['bin/stockroute.js', 'config', 'check', '--config', 'config/default.json'],
        {
          cwd: repoRoot,
          env: { ...process.env, STOCKROUTE_CODE_CACHE: cacheDir },
          encoding: 'utf8',
        },
      )
    const first = run()
    expect(first.status, first.stderr).toBe(0)
    const [file] = cacheFiles(cacheDir)
    expect(file).toMatch(/^stockroute\.cjs-config-[0-9a-f]{16}\.v8cache$/)
    const written = statSync(join(cacheDir, file as string)).mtimeMs
    const second = run()
    expect(second.status, second.stderr).toBe(0)
    expect(second.stdout).toBe(first.stdout)
    // Accepted, so not written again.
    expect(statSync(join(cacheDir, file as string)).mtimeMs).toBe(written)
    // A mistyped command fails as ever, and keeps no cache of its own.
    const typo = spawnSync(process.execPath, ['bin/stockroute.js', 'swapp'], {
      cwd: repoRoot,
      env: { ...process.env, STOCKROUTE_CODE_CACHE: cacheDir },
      encoding: 'utf8',
    })
    expect(typo.status).not.toBe(0)
    expect(typo.stderr).toContain("unknown command 'swapp'")
    expect(cacheFiles(cacheDir)).toEqual([file])
  })
})
