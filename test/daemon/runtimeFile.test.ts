import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import {
  controlTokenFilePathOf,
  prepareControlToken,
  RuntimeFileError,
  readRuntimeFile,
  removeRuntimeFile,
  runtimeFilePathOf,
  writeRuntimeFile,
} from '../../src/daemon/runtimeFile.js'
import { openLedger } from '../../src/store/index.js'
import { useDaemonProcesses } from '../helpers/daemonProcess.js'
import { exitOf, isAlive } from '../helpers/processes.js'
import { useSandboxService } from '../helpers/sandboxService.js'

// The daemon's runtime file (src/daemon/runtimeFile.ts) on real files and real processes: first its
// functions alone, then `stockroute start` writing it, removing it at a clean stop, and leaving it
// behind when killed (then read as stale).

const modeOf = (path: string) => statSync(path).mode & 0o777

/** A fresh folder with a ledger path in it (the ledger itself is not created). */
function ledgerPathInNewFolder(): string {
  return join(mkdtempSync(join(tmpdir(), 'stockroute-runtime-')), 'stockroute.sqlite')
}

/** The pid of a process that has exited (and been reaped). */
function deadPid(): number {
  const child = spawnSync(process.execPath, ['-e', 'process.stdout.write(String(process.pid))'], {
    encoding: 'utf8',
  })
  return Number(child.stdout)
}

describe('prepareControlToken', () => {
  it('without api.tokenEnv: a new random token in <ledger>.control-token, mode 0600, every start', () => {
    const ledgerPath = ledgerPathInNewFolder()
    const first = prepareControlToken({ ledgerPath, env: {} })
    expect(first.source).toEqual({ source: 'file', path: controlTokenFilePathOf(ledgerPath) })
    expect(first.token).toMatch(/^[0-9a-f]{64}$/)
    expect(readFileSync(controlTokenFilePathOf(ledgerPath), 'utf8').trim()).toBe(first.token)
    expect(modeOf(controlTokenFilePathOf(ledgerPath))).toBe(0o600)
    const second = prepareControlToken({ ledgerPath, env: {} })
    expect(second.token).not.toBe(first.token)
    expect(readdirSync(join(ledgerPath, '..'))).toEqual(['stockroute.sqlite.control-token'])
  })

  it("with api.tokenEnv: the variable's value, no file; a variable not set is a clear error", () => {
    const ledgerPath = ledgerPathInNewFolder()
    const env = { STOCKROUTE_API_TOKEN: 'operator-token-1' }
    expect(prepareControlToken({ ledgerPath, tokenEnv: 'STOCKROUTE_API_TOKEN', env })).toEqual({
      token: 'operator-token-1',
      source: { source: 'env', name: 'STOCKROUTE_API_TOKEN' },
    })
    expect(existsSync(controlTokenFilePathOf(ledgerPath))).toBe(false)
    let thrown: unknown
    try {
      prepareControlToken({ ledgerPath, tokenEnv: 'STOCKROUTE_API_TOKEN', env: {} })
    } catch (error) {
      thrown = error
    }
    expect(thrown).toBeInstanceOf(RuntimeFileError)
    expect((thrown as RuntimeFileError).code).toBe('CONTROL_TOKEN_MISSING')
    expect((thrown as Error).message).toMatch(/STOCKROUTE_API_TOKEN, which is not set: set it/)
  })
})

describe('writeRuntimeFile, readRuntimeFile, removeRuntimeFile', () => {
  it('running: written 0600 with no temporary left; read back as running while its pid owns the ledger', () => {
    const ledgerPath = ledgerPathInNewFolder()
    const ledger = openLedger({ path: ledgerPath, owner: { command: 'runtime file test' } })
    try {
      const { source } = prepareControlToken({ ledgerPath, env: {} })
      const path = writeRuntimeFile({
        ledgerPath,
        pid: process.pid,
        url: 'http://127.0.0.1:41234',
        startedAt: new Date('2026-11-25T10:00:00.000Z'),
        token: source,
      })
      expect(path).toBe(runtimeFilePathOf(ledgerPath))
      expect(modeOf(path)).toBe(0o600)
      expect(readdirSync(join(ledgerPath, '..')).filter((name) => name.endsWith('.tmp'))).toEqual([])
      const found = readRuntimeFile(ledgerPath)
      expect(found).toEqual({
        status: 'running',
        path,
        runtime: {
          pid: process.pid,
          url: 'http://127.0.0.1:41234',
          startedAt: '2026-11-25T10:00:00.000Z',
          ledgerPath,
          token: source,
        },
      })
      // Another pid's removal leaves it; ours removes it and the generated token.
      removeRuntimeFile({ ledgerPath, pid: process.pid + 1 })
      expect(existsSync(path)).toBe(true)
      removeRuntimeFile({ ledgerPath, pid: process.pid })
      expect(existsSync(path)).toBe(false)
      expect(existsSync(controlTokenFilePathOf(ledgerPath))).toBe(false)
      expect(readRuntimeFile(ledgerPath)).toEqual({ status: 'absent', path })
    } finally {
      ledger.close()
    }
  })

  it('stale: a dead pid, a live pid that does not own the ledger, a file that is not one', () => {
    const ledgerPath = ledgerPathInNewFolder()
    openLedger({ path: ledgerPath }).close() // a ledger without an owner
    const token = { source: 'env', name: 'STOCKROUTE_API_TOKEN' } as const
    const write = (pid: number) =>
      writeRuntimeFile({ ledgerPath, pid, url: 'http://127.0.0.1:1', startedAt: new Date(), token })

    const dead = deadPid()
    expect(isAlive(dead)).toBe(false)
    write(dead)
    const gone = readRuntimeFile(ledgerPath)
    expect(gone.status).toBe('stale')
    expect(gone.status === 'stale' && gone.why).toBe(
      `its daemon, pid ${dead}, is not running (killed or crashed)`,
    )

    write(process.pid)
    const notOwner = readRuntimeFile(ledgerPath)
    expect(notOwner.status === 'stale' && notOwner.why).toBe(
      `pid ${process.pid} runs, but the ledger has no owner: no daemon writes it`,
    )

    writeFileSync(runtimeFilePathOf(ledgerPath), '{"pid": "twelve"}')
    const invalid = readRuntimeFile(ledgerPath)
    expect(invalid.status === 'stale' && invalid.why).toMatch(/is not a runtime file \(pid: /)
    writeFileSync(runtimeFilePathOf(ledgerPath), '{')
    const notJson = readRuntimeFile(ledgerPath)
    expect(notJson.status === 'stale' && notJson.why).toMatch(/is not JSON/)
  })
})

describe('the daemon and its runtime file', () => {
  const service = useSandboxService()
  const daemons = useDaemonProcesses(service)

  it('written at start (0600, its pid, URL and token file); removed at SIGTERM; left by SIGKILL and then stale', async () => {
    const { configPath, ledgerPath } = await daemons.writeConfig('runtime', [])
    const first = daemons.start(configPath)
    const apiLine = await first.waitFor(/control API http:\/\/127\.0\.0\.1:\d+/)
    const url = /control API (http:\/\/127\.0\.0\.1:\d+)/.exec(apiLine)?.[1]
    const path = runtimeFilePathOf(ledgerPath)
    const found = readRuntimeFile(ledgerPath)
    expect(found.status, JSON.stringify(found)).toBe('running')
    if (found.status !== 'running') return
    expect(found.runtime).toMatchObject({
      pid: first.child.pid,
      url,
      ledgerPath,
      token: { source: 'file', path: controlTokenFilePathOf(ledgerPath) },
    })
    expect(modeOf(path)).toBe(0o600)
    expect(modeOf(controlTokenFilePathOf(ledgerPath))).toBe(0o600)
    // The token in the file is the one the API requires.
    const token = readFileSync(controlTokenFilePathOf(ledgerPath), 'utf8').trim()
    const authorized = await fetch(`${url}/v1/swaps/1`, { headers: { authorization: `Bearer ${token}` } })
    expect(authorized.status).toBe(404)
    const refused = await fetch(`${url}/v1/swaps/1`, { headers: { authorization: 'Bearer not-the-token' } })
    expect(refused.status).toBe(401)

    first.child.kill('SIGTERM')
    expect((await exitOf(first.child)).code).toBe(0)
    expect(existsSync(path)).toBe(false)
    expect(existsSync(controlTokenFilePathOf(ledgerPath))).toBe(false)

    const second = daemons.start(configPath)
    await second.waitFor(/control API/)
    expect(readRuntimeFile(ledgerPath).status).toBe('running')
    second.child.kill('SIGKILL')
    await exitOf(second.child)
    expect(existsSync(path)).toBe(true)
    const stale = readRuntimeFile(ledgerPath)
    expect(stale.status).toBe('stale')
    expect(stale.status === 'stale' && stale.why).toBe(
      `its daemon, pid ${second.child.pid}, is not running (killed or crashed)`,
    )
  }, 90_000)
})
