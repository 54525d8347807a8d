// The daemon probe:control talks to: found from a config as the CLI finds it (the runtime file beside
// the ledger and the token it names), or an embedded demo daemon started in a folder of its own
// (the built CLI, `npm run build` first) and stopped by its pid at the end.
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { readControlToken } from '../../src/cli/daemon/readControlToken.js'
import { readLedgerTarget } from '../../src/cli/daemon/readLedgerTarget.js'
import { readRuntimeFile } from '../../src/daemon/runtimeFile.js'
import { loopbackUrl } from './options.js'

const repoRoot = join(import.meta.dirname, '..', '..')

/** A daemon to probe: its control URL and token, and for one the probe started, how to stop it. */
export type ProbedDaemon = { url: string; token: string; pid: number | undefined; stop(): Promise<void> }

/**
 * The daemon running on `configPath`'s ledger, by its runtime file, or throws saying why there is
 * none. Its URL must be loopback, as `--url`'s.
 */
export function findRunningDaemon(configPath: string): ProbedDaemon {
  const target = readLedgerTarget(configPath)
  const reading = readRuntimeFile(target.ledgerPath)
  if (reading.status !== 'running')
    throw new Error(
      `no daemon runs on ${target.ledgerPath}${reading.status === 'stale' ? ` (${reading.why})` : ''}: start it with \`stockroute start --config ${configPath}\`, or pass --start`,
    )
  const { runtime } = reading
  const token = readControlToken(runtime.token, { env: process.env, dotenv: target.dotenv, pid: runtime.pid })
  return { url: loopbackUrl(runtime.url), token, pid: runtime.pid, stop: async () => {} }
}

/**
 * Starts `stockroute start` on the embedded demo (config/default.json, its data in a new temporary
 * folder), resolves once its control API listens (at most 120 s); `stop()` sends its pid SIGTERM
 * (SIGKILL after 30 s) and removes the folder.
 */
export async function startDemoDaemon(progress: (line: string) => void): Promise<ProbedDaemon> {
  const folder = mkdtempSync(join(tmpdir(), 'stockroute-probe-'))
  const config = JSON.parse(readFileSync(join(repoRoot, 'config', 'default.json'), 'utf8')) as Record<
    string,
    unknown
  >
  const configPath = join(folder, 'probe.json')
  writeFileSync(configPath, JSON.stringify({ ...config, dataDir: 'data' }))
  const child = spawn(
    process.execPath,
    [join(repoRoot, 'bin', 'stockroute.js'), 'start', '--config', configPath],
    {
      cwd: folder,
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  )
  let output = ''
  child.stdout.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  child.stderr.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  const stop = () => stopChild(child, folder)
  try {
    const url = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the demo daemon did not listen within 120 s:\n${output}`)),
        120_000,
      )
      const look = () => {
        const match = /control API (http:\/\/\S+)/.exec(output)
        if (!match?.[1]) return
        clearTimeout(timer)
        resolve(match[1])
      }
      child.stdout.on('data', look)
      child.once('exit', (code) => {
        clearTimeout(timer)
        reject(new Error(`the demo daemon exited (${code}) before it listened:\n${output}`))
      })
    })
    const token = readFileSync(join(folder, 'data', 'stockroute.sqlite.control-token'), 'utf8').trim()
    progress(`demo daemon pid ${child.pid} listens at ${url} (data in ${folder})`)
    return { url: loopbackUrl(url), token, pid: child.pid, stop }
  } catch (error) {
    await stop()
    throw error
  }
}

async function stopChild(child: ChildProcess, folder: string): Promise<void> {
  if (child.exitCode === null && child.signalCode === null && child.pid !== undefined) {
    const exited = new Promise((resolve) => child.once('exit', resolve))
    process.kill(child.pid, 'SIGTERM')
    const timer = setTimeout(() => {
      if (child.pid !== undefined && child.exitCode === null) process.kill(child.pid, 'SIGKILL')
    }, 30_000)
    await exited
    clearTimeout(timer)
  }
  rmSync(folder, { recursive: true, force: true })
}
