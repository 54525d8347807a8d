// The soak's child processes: the sandbox (long-lived, its anvil chains outlive daemon kills) and the
// daemon (killed and restarted at will). Each runs in its own process group, so a Ctrl-C at the
// terminal reaches the soak only and the soak decides how its children stop. Every wait is bounded,
// and every pid started is remembered so that an exit of the soak kills what is left, by pid.
import { type ChildProcess, spawn } from 'node:child_process'
import { createWriteStream, readdirSync, readFileSync, type WriteStream } from 'node:fs'
import { join } from 'node:path'
import { createInterface } from 'node:readline'
import type { SandboxDescription } from '@stockroute/sandbox/describe.js'
import { sleep } from './rpc.js'

export const repoRoot = join(import.meta.dirname, '..', '..')

/** Pids this process started (children and the sandbox's anvils), killed on exit if still alive. */
const started = new Set<number>()
let exitHookInstalled = false

function remember(pid: number | undefined) {
  if (pid === undefined) return
  started.add(pid)
  if (exitHookInstalled) return
  exitHookInstalled = true
  process.once('exit', killAllStarted)
}

/** SIGKILLs every process the soak started that still runs (synchronous: safe in an exit hook). */
export function killAllStarted() {
  for (const pid of started) if (isAlive(pid)) signalPid(pid, 'SIGKILL')
}

/** True when `pid` names a live process (a zombie counts as gone). */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return false
  }
}

function signalPid(pid: number, signal: NodeJS.Signals) {
  try {
    process.kill(pid, signal)
  } catch {
    // already gone
  }
}

/** The children's environment: no STOCKROUTE_* of ours, so secrets come from the .env beside the config. */
function childEnv(): NodeJS.ProcessEnv {
  return Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('STOCKROUTE_')))
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve()
  return new Promise((resolve) => child.once('exit', () => resolve()))
}

/** Waits up to `ms` for `child` to exit; true when it did. */
async function exitedWithin(child: ChildProcess, ms: number): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), ms)
  })
  const result = await Promise.race([exited(child).then(() => true as const), timeout])
  clearTimeout(timer)
  return result
}

function anvilChildrenOf(parentPid: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((entry) => {
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
        const command = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
        const parent = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
        return command === 'anvil' && parent === parentPid ? [Number(entry)] : []
      } catch {
        return []
      }
    })
}

export type SandboxProcess = {
  description: SandboxDescription & { configPath: string }
  pid: number
  anvilPids: number[]
  /** SIGTERM, then SIGKILL (the sandbox and its anvils) when it has not exited within 15 s. */
  stop(): Promise<void>
}

/**
 * Runs `stockroute sandbox --write-config DIR --json` as a child and waits (at most 90 s) for its
 * description. Its stderr goes to `DIR/sandbox.log`.
 *
 * @example
 * const sandbox = await startSandboxProcess(dir)
 * sandbox.description.chains[0].rpcUrl
 * await sandbox.stop()
 */
export async function startSandboxProcess(dir: string): Promise<SandboxProcess> {
  const log = createWriteStream(join(dir, 'sandbox.log'), { flags: 'a' })
  const child = spawn(process.execPath, ['bin/stockroute.js', 'sandbox', '--write-config', dir, '--json'], {
    cwd: repoRoot,
    env: childEnv(),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  remember(child.pid)
  child.stderr?.pipe(log)
  const stop = async () => {
    const anvils = anvilChildrenOf(child.pid ?? -1)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    if (!(await exitedWithin(child, 15_000))) child.kill('SIGKILL')
    await exitedWithin(child, 5_000)
    for (const pid of [...anvils, ...anvilPids]) if (isAlive(pid)) signalPid(pid, 'SIGKILL')
    log.end()
  }
  let anvilPids: number[] = []
  try {
    const line = await new Promise<string>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the sandbox printed nothing within 90 s')), 90_000)
      createInterface({ input: child.stdout as NodeJS.ReadableStream }).once('line', (text) => {
        clearTimeout(timer)
        resolve(text)
      })
      child.once('exit', (code, signal) => {
        clearTimeout(timer)
        reject(
          new Error(
            `the sandbox exited (${code ?? signal}) before it was ready; see ${join(dir, 'sandbox.log')}`,
          ),
        )
      })
    })
    child.stdout?.resume()
    anvilPids = anvilChildrenOf(child.pid ?? -1)
    for (const pid of anvilPids) remember(pid)
    return {
      description: JSON.parse(line) as SandboxProcess['description'],
      pid: child.pid ?? -1,
      anvilPids,
      stop,
    }
  } catch (error) {
    await stop()
    throw error
  }
}

/** How one run of the daemon ended. */
export type DaemonExit = {
  code: number | null
  signal: NodeJS.Signals | null
  expected: boolean
  atMs: number
}

export type DaemonProcess = {
  /** Starts the daemon with `configPath` (default the soak config); no-op while one runs. */
  start(configPath?: string): void
  readonly running: boolean
  readonly pid: number | undefined
  /** SIGKILL, waits (5 s at most) for the exit. */
  kill(): Promise<void>
  /** SIGTERM, waits up to `graceMs`, then SIGKILL; resolves with the exit. */
  stop(graceMs?: number): Promise<DaemonExit | undefined>
  /** Every run's end, in order; `expected` when the soak asked for it. */
  readonly exits: readonly DaemonExit[]
  readonly starts: number
  close(): void
}

/**
 * Runs `stockroute start --config FILE` as a child, its stdout and stderr appended to
 * `DIR/daemon.out.log` (its JSON log is `DIR/data/stockroute.log`).
 *
 * @example
 * const daemon = createDaemonProcess({ dir, configPath })
 * daemon.start()
 * await daemon.kill() // SIGKILL
 * daemon.start()      // recovery runs at its start
 * await daemon.stop() // SIGTERM
 */
export function createDaemonProcess(parameters: { dir: string; configPath: string }): DaemonProcess {
  const out: WriteStream = createWriteStream(join(parameters.dir, 'daemon.out.log'), { flags: 'a' })
  let child: ChildProcess | undefined
  let expectExit = false
  let starts = 0
  const exits: DaemonExit[] = []

  const isRunning = () => child !== undefined && child.exitCode === null && child.signalCode === null

  return {
    start(configPath = parameters.configPath) {
      if (isRunning()) return
      starts += 1
      expectExit = false
      out.write(`\n=== soak: daemon start #${starts} (${configPath}) at ${new Date().toISOString()} ===\n`)
      const spawned = spawn(process.execPath, ['bin/stockroute.js', 'start', '--config', configPath], {
        cwd: repoRoot,
        env: childEnv(),
        detached: true,
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      remember(spawned.pid)
      spawned.stdout?.pipe(out, { end: false })
      spawned.stderr?.pipe(out, { end: false })
      spawned.once('exit', (code, signal) => {
        exits.push({ code, signal, expected: expectExit, atMs: Date.now() })
        out.write(`=== soak: daemon exited (code ${code}, signal ${signal}) ===\n`)
      })
      child = spawned
    },
    get running() {
      return isRunning()
    },
    get pid() {
      return isRunning() ? child?.pid : undefined
    },
    async kill() {
      if (!child || !isRunning()) return
      expectExit = true
      child.kill('SIGKILL')
      await exitedWithin(child, 5_000)
    },
    async stop(graceMs = 20_000) {
      if (!child || !isRunning()) return undefined
      expectExit = true
      child.kill('SIGTERM')
      if (!(await exitedWithin(child, graceMs))) {
        out.write(`=== soak: daemon still running ${graceMs} ms after SIGTERM: SIGKILL ===\n`)
        child.kill('SIGKILL')
        await exitedWithin(child, 5_000)
      }
      // Let the exit handler record the exit before reporting it.
      await sleep(10)
      return exits.at(-1)
    },
    get exits() {
      return exits
    },
    get starts() {
      return starts
    },
    close() {
      out.end()
    },
  }
}
