import { type ChildProcess, spawn } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'

export const repoRoot = join(import.meta.dirname, '..', '..')

/** True when `pid` names a live process (a zombie counts as gone). */
export function isAlive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    return stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3) !== 'Z'
  } catch {
    return false
  }
}

/** PIDs of anvil processes whose parent is `parentPid`. */
export function anvilChildrenOf(parentPid: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .flatMap((entry) => {
      try {
        const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
        const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
        const command = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'))
        return command === 'anvil' && Number(fields[1]) === parentPid ? [Number(entry)] : []
      } catch {
        return []
      }
    })
}

/** PIDs of live anvil processes started with `--chain-id <chainId>`. */
export function anvilsWithChainId(chainId: number): number[] {
  return readdirSync('/proc')
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        const args = readFileSync(`/proc/${entry}/cmdline`, 'utf8').split('\0')
        const at = args.indexOf('--chain-id')
        return args[0]?.endsWith('anvil') === true && at >= 0 && args[at + 1] === String(chainId)
      } catch {
        return false
      }
    })
    .map(Number)
    .filter(isAlive)
}

/** Runs the stockroute CLI (or a tsx script) as a child process with piped output. */
export function spawnNode(args: readonly string[], options: { env?: NodeJS.ProcessEnv } = {}): ChildProcess {
  return spawn(process.execPath, [...args], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(options.env ? { env: options.env } : {}),
  })
}

/** Resolves with the first stdout line, or rejects when the process exits first. */
export function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let buffer = ''
    let stderr = ''
    child.stderr?.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    child.stdout?.on('data', (chunk: Buffer) => {
      buffer += chunk.toString()
      const newline = buffer.indexOf('\n')
      if (newline >= 0) resolve(buffer.slice(0, newline))
    })
    child.once('exit', (code) => reject(new Error(`exited with ${code} before printing a line:\n${stderr}`)))
  })
}

export function exitOf(child: ChildProcess): Promise<{ code: number | null; signal: NodeJS.Signals | null }> {
  const ended = () =>
    (child.exitCode !== null || child.signalCode !== null) &&
    [child.stdout, child.stderr].every(
      (stream) => !stream || stream.destroyed || stream.closed || stream.readableEnded,
    )
  if (ended()) return Promise.resolve({ code: child.exitCode, signal: child.signalCode })
  // 'close', not 'exit': it comes once the child's pipes are closed too, so whatever it printed last
  // (a failpoint's line right before SIGKILL) has been read by then. The check every 100 ms covers a
  // 'close' that came before this listener (seen under load: the wait never ended).
  return new Promise((resolve) => {
    const finish = () => {
      clearInterval(check)
      resolve({ code: child.exitCode, signal: child.signalCode })
    }
    const check = setInterval(() => ended() && finish(), 100)
    child.once('close', finish)
  })
}

/** What a run of the CLI printed, how it ended and how long it took. */
export type CliRun = { code: number | null; stdout: string; stderr: string; elapsedMs: number }

/**
 * Runs `stockroute <args>` to its end and collects its output. The STOCKROUTE_* variables of this
 * process are removed from the child's environment, so secrets come from the .env beside the
 * config, as they would for a user. It runs in the repository's folder unless `cwd` says otherwise.
 */
export function runStockroute(args: readonly string[], options: { cwd?: string } = {}): Promise<CliRun> {
  const env = Object.fromEntries(
    Object.entries(process.env).filter(([name]) => !name.startsWith('STOCKROUTE_')),
  )
  const started = performance.now()
  const child = spawn(process.execPath, [join(repoRoot, 'bin', 'stockroute.js'), ...args], {
    cwd: options.cwd ?? repoRoot,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    stdout += chunk.toString()
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  return new Promise((resolve, reject) => {
    child.once('error', reject)
    child.once('close', (code) =>
      resolve({ code, stdout, stderr, elapsedMs: Math.round(performance.now() - started) }),
    )
  })
}
