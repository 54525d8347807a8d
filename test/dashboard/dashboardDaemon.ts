// One `stockroute start` per dashboard test file, for the whole file (the shared harness of
// test/helpers/daemonProcess.ts stops its daemons after each test): a config of its own on the
// file's sandbox service, its URL from the line it prints, its token from the file beside the ledger.
import { type ChildProcess, spawn } from 'node:child_process'
import { readFileSync } from 'node:fs'
import type { SandboxService } from '@stockroute/sandbox/service/startSandboxService.js'
import { afterAll, beforeAll } from 'vitest'
import { useDaemonProcesses } from '../helpers/daemonProcess.js'
import { exitOf, repoRoot } from '../helpers/processes.js'

export type DashboardDaemon = {
  /** `http://127.0.0.1:PORT`. */
  url: string
  /** The URL the daemon printed for the dashboard. */
  dashboardUrl: string
  token: string
  /** The daemon's ledger (a test writes what only the daemon would, e.g. an entry halt). */
  ledgerPath: string
  /** A call with the bearer token, as an aggregator or a script makes it. */
  api(path: string, init?: RequestInit): Promise<Response>
}

/** Starts the daemon before the file's tests (with `strategies`), stops it (SIGTERM, by pid) after. */
export function useDashboardDaemon(
  service: () => SandboxService,
  strategies: unknown[],
): () => DashboardDaemon {
  const daemons = useDaemonProcesses(service)
  let child: ChildProcess | undefined
  let daemon: DashboardDaemon | undefined
  beforeAll(async () => {
    const { configPath, ledgerPath } = await daemons.writeConfig('dashboard', strategies)
    const started = spawn(process.execPath, ['bin/stockroute.js', 'start', '--config', configPath], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    child = started
    let stdout = ''
    let stderr = ''
    started.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    const dashboardUrl = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`no dashboard line in 60 s:\n${stdout}\n${stderr}`)),
        60_000,
      )
      started.stdout?.on('data', (chunk: Buffer) => {
        stdout += chunk.toString()
        const found = /^dashboard (\S+)/m.exec(stdout)
        if (found?.[1]) {
          clearTimeout(timer)
          resolve(found[1])
        }
      })
    })
    const url = new URL(dashboardUrl).origin
    const token = readFileSync(`${ledgerPath}.control-token`, 'utf8').trim()
    daemon = {
      url,
      dashboardUrl,
      token,
      ledgerPath,
      api: (path, init = {}) =>
        fetch(`${url}${path}`, {
          ...init,
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', ...init.headers },
        }),
    }
  }, 90_000)
  afterAll(async () => {
    if (!child || child.exitCode !== null || child.signalCode !== null) return
    child.kill('SIGTERM')
    const ended = await Promise.race([
      exitOf(child),
      new Promise((resolve) => setTimeout(resolve, 15_000, false)),
    ])
    if (ended === false) child.kill('SIGKILL')
  }, 30_000)
  return () => {
    if (!daemon) throw new Error('the dashboard daemon is not started yet: call it inside a test')
    return daemon
  }
}
