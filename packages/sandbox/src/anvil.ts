import { type ChildProcess, spawn } from 'node:child_process'
import { existsSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { StockrouteError } from '@stockroute/client/domain/errors.js'

export type AnvilInstance = {
  chainId: number
  /** HTTP JSON-RPC URL on loopback. */
  rpcUrl: string
  port: number
  pid: number
  /** Stops the process and resolves once it has exited. Idempotent. */
  stop: () => Promise<void>
}

export type StartAnvilParameters = {
  chainId: number
  /** 0 (default) lets the OS pick a free loopback port. */
  port?: number
  /** Seconds between blocks; default: a block per transaction (automine). */
  blockTime?: number
  /** Give up when anvil has not said where it listens after this long. Default 15 s. */
  startTimeoutMs?: number
  signal?: AbortSignal
}

/** Stable codes of {@link AnvilStartError}. */
export type AnvilStartErrorCode = 'ANVIL_NOT_FOUND' | 'ANVIL_START_FAILED'

/** An anvil chain could not be started: its binary is missing, or it did not come up listening. */
export class AnvilStartError extends StockrouteError {
  override name = 'AnvilStartError'
  declare readonly code: AnvilStartErrorCode
  constructor(parameters: {
    code: AnvilStartErrorCode
    shortMessage: string
    remedy?: string | undefined
    metaMessages?: readonly string[]
    cause?: unknown
  }) {
    super(parameters)
  }
}

const running = new Set<ChildProcess>()
let exitHooksInstalled = false

/**
 * Starts one anvil chain on 127.0.0.1 with the anvil binary shipped by npm `@foundry-rs/anvil`
 * (or `ANVIL_BIN`). Anvil runs in a process group of its own, so the terminal's Ctrl-C (sent to the
 * whole foreground group) reaches only this process, which decides when its chains stop: a daemon
 * lets its executions in flight finish on them first. The process is still killed when this Node
 * process exits, crashes or dies of a signal it does not handle, so no orphan anvil outlives its
 * owner.
 *
 * @example
 * const anvil = await startAnvil({ chainId: 31337 })
 * anvil.rpcUrl // 'http://127.0.0.1:41235'
 * await anvil.stop()
 */
export async function startAnvil(parameters: StartAnvilParameters): Promise<AnvilInstance> {
  const { chainId, port = 0, blockTime, startTimeoutMs = 15_000, signal } = parameters
  signal?.throwIfAborted()
  installExitHooks()
  const args = [
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--chain-id',
    String(chainId),
    '--accounts',
    '1',
    // Old block states are dropped rather than written to ~/.foundry/anvil/tmp: a long run wrote
    // about 10 GB there, and a killed anvil never removes its directory. Recent states (the reorg
    // window, calls at the watcher's head) stay in memory.
    '--max-persisted-states',
    '0',
  ]
  if (blockTime !== undefined) args.push('--block-time', String(blockTime))
  const [command, ...prefix] = withParentDeathSignal(anvilBinary())
  const child = spawn(command ?? anvilBinary(), [...prefix, ...args], {
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true,
  })
  running.add(child)
  const exited = new Promise<void>((resolve) => {
    const gone = () => {
      running.delete(child)
      resolve()
    }
    child.once('exit', gone)
    // A binary that cannot be run never exits: it only errors, then closes.
    child.once('close', gone)
    child.once('error', gone)
  })
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM')
    await exited
  }

  try {
    const listeningPort = await waitForListening(child, startTimeoutMs, signal)
    // Nothing reads anvil's log after start-up; keep draining so the pipe never fills and blocks it.
    child.stdout?.resume()
    child.stderr?.resume()
    return {
      chainId,
      rpcUrl: `http://127.0.0.1:${listeningPort}`,
      port: listeningPort,
      pid: child.pid ?? -1,
      stop,
    }
  } catch (error) {
    await stop()
    throw error
  }
}

function waitForListening(child: ChildProcess, timeoutMs: number, signal?: AbortSignal): Promise<number> {
  return new Promise((resolve, reject) => {
    let output = ''
    const timer = setTimeout(
      () =>
        fail(
          new AnvilStartError({
            code: 'ANVIL_START_FAILED',
            shortMessage: `anvil did not start within ${timeoutMs} ms`,
            remedy:
              'check that the anvil binary (ANVIL_BIN, else the one @foundry-rs/anvil installs) runs here with --version and is not starved of CPU, or allow it more time (startTimeoutMs)',
          }),
        ),
      timeoutMs,
    )
    const onAbort = () => fail(signal?.reason ?? new Error('aborted'))
    signal?.addEventListener('abort', onAbort, { once: true })
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = /Listening on 127\.0\.0\.1:(\d+)/.exec(output)
      if (match?.[1]) done(() => resolve(Number(match[1])))
    }
    const onExit = (code: number | null) =>
      fail(
        new AnvilStartError({
          code: 'ANVIL_START_FAILED',
          shortMessage: `anvil exited with code ${code} before listening:`,
          metaMessages: [output.slice(-2000)],
          remedy:
            "read anvil's output above: a port in use (choose another, or 0 for a free one) and a wrong ANVIL_BIN are the usual causes",
        }),
      )
    const onError = (error: Error) =>
      fail(
        new AnvilStartError({
          code: 'ANVIL_START_FAILED',
          shortMessage: `could not run anvil: ${error.message}`,
          remedy: 'run `npm install` (it installs anvil), or set ANVIL_BIN to an anvil executable',
          cause: error,
        }),
      )
    child.stdout?.on('data', onData)
    child.stderr?.on('data', onData)
    child.once('exit', onExit)
    child.once('error', onError)
    function done(finish: () => void) {
      clearTimeout(timer)
      signal?.removeEventListener('abort', onAbort)
      child.stdout?.off('data', onData)
      child.stderr?.off('data', onData)
      child.off('exit', onExit)
      child.off('error', onError)
      finish()
    }
    function fail(error: unknown) {
      done(() => reject(error))
    }
  })
}

/** Path of the anvil binary: `ANVIL_BIN`, else the platform package installed with `@foundry-rs/anvil`. */
export function anvilBinary(): string {
  const fromEnv = process.env.ANVIL_BIN
  if (fromEnv) return fromEnv
  const arch = process.arch === 'x64' ? 'amd64' : process.arch
  const platformPackage = `@foundry-rs/anvil-${process.platform}-${arch}`
  try {
    const require = createRequire(import.meta.url)
    const binary = join(dirname(require.resolve(`${platformPackage}/package.json`)), 'bin', 'anvil')
    if (existsSync(binary)) return binary
  } catch {
    // fall through to the explanation below
  }
  throw new AnvilStartError({
    code: 'ANVIL_NOT_FOUND',
    shortMessage:
      `anvil binary not found: ${platformPackage} is not installed. Run \`npm install\` (its postinstall must be ` +
      'allowed in package.json "allowScripts"), or set ANVIL_BIN to an anvil executable.',
  })
}

/**
 * Which anvil build {@link anvilBinary} names, for keeping state dumps apart: its path, size and
 * modification time (an upgrade of the npm package or of ANVIL_BIN changes at least one).
 */
export function anvilIdentity(): string {
  const binary = anvilBinary()
  const { size, mtimeMs } = statSync(binary)
  return `${binary}:${size}:${Math.trunc(mtimeMs)}`
}

/**
 * On Linux, the command line that runs `binary` with SIGKILL as its parent-death signal (util-linux
 * `setpriv` sets it, then execs anvil in the same pid): in its own process group anvil is no longer
 * killed with ours, and this covers the one death no hook sees, a SIGKILL of this process.
 * Elsewhere, the binary alone (the exit and signal hooks still apply).
 */
function withParentDeathSignal(binary: string): string[] {
  if (process.platform !== 'linux') return [binary]
  const setpriv = ['/usr/bin/setpriv', '/bin/setpriv'].find((path) => existsSync(path))
  return setpriv ? [setpriv, '--pdeathsig', 'KILL', binary] : [binary]
}

/** PIDs of the anvil processes this Node process started and that still run. */
export function runningAnvilPids(): number[] {
  return [...running].flatMap((child) => (child.pid === undefined ? [] : [child.pid]))
}

function killAll() {
  for (const child of running) child.kill('SIGKILL')
}

/**
 * On exit (process.exit, the end of the event loop, an uncaught exception), kill every child
 * synchronously. On SIGINT/SIGTERM/SIGHUP, when the application has no listener of its own for the
 * signal, do the same and then die of it as Node would have; when it has one, it handles the stop
 * (and stops its chains itself, or exits and the exit hook kills them). The signal listeners stay
 * for the whole process, since an application may listen only for a while: anvil runs in its own
 * process group, so a signal that killed this process by default would leave it running.
 */
function installExitHooks() {
  if (exitHooksInstalled) return
  exitHooksInstalled = true
  process.once('exit', killAll)
  for (const name of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    const onSignal = () => {
      if (process.listenerCount(name) > 1) return
      killAll()
      process.off(name, onSignal)
      process.kill(process.pid, name)
    }
    // First in line, so that it counts the application's one-shot listeners before they remove themselves.
    process.prependListener(name, onSignal)
  }
}
