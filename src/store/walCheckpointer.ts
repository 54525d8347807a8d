import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import type Database from 'better-sqlite3'

/** A background checkpointer of one ledger file's WAL (see {@link startWalCheckpointer}). */
export type WalCheckpointer = {
  /** `running`, or `inline` once the worker failed and the connection checkpoints for itself again. */
  readonly state: 'running' | 'inline' | 'stopped'
  /** Checkpoints the worker ran, and the WAL frames they copied into the database file. */
  readonly counts: { checkpoints: number; framesCopied: number }
  /**
   * Stops the worker and closes its connection, waiting for it at most `timeoutMs` (synchronous, so
   * that `Ledger.close` stays synchronous). Idempotent.
   */
  stop(timeoutMs?: number): void
}

export type StartWalCheckpointerParameters = {
  /** The ledger's main (writing) connection: its own automatic checkpoints are turned down. */
  db: Database.Database
  path: string
  /** How often the worker copies the WAL into the database file, ms. Default 100. */
  intervalMs?: number | undefined
  /**
   * How long after the start the worker thread is started, ms. Default 1000: an open that closes
   * sooner (a CLI command, a test) never pays for a thread; the writer's safety net covers the wait.
   */
  startAfterMs?: number | undefined
  /** WAL pages at which the main connection still checkpoints by itself (a starved worker). Default 10,000. */
  fallbackPages?: number | undefined
  /** Called once if the worker fails (the main connection is back to checkpointing inline; the message says so). */
  onError?: ((error: Error) => void) | undefined
  /** @internal Tests only: the SQLite driver module the worker loads (a missing one makes it fail). */
  driver?: string | undefined
}

/** SQLite's own default of `wal_autocheckpoint`, restored when the worker fails. */
const inlineAutocheckpointPages = 1000

// Words shared by the two threads: stop asked, connection open, stopped, checkpoints, frames copied.
const STOP = 0
const STARTED = 1
const STOPPED = 2
const CHECKPOINTS = 3
const FRAMES = 4

// Plain CommonJS run with `eval`: the worker must load under plain Node, vitest and tsx alike, and
// a transpiled function's text may call helpers the worker does not have.
const workerSource = `
const { parentPort, workerData } = require('node:worker_threads')
const shared = new Int32Array(workerData.shared)
let db
try {
  const Database = require(workerData.driver)
  db = new Database(workerData.path, { fileMustExist: true, timeout: 0 })
  db.pragma('synchronous = FULL')
  const checkpoint = db.prepare('PRAGMA wal_checkpoint(PASSIVE)')
  Atomics.store(shared, ${STARTED}, 1)
  while (Atomics.load(shared, ${STOP}) === 0) {
    Atomics.wait(shared, ${STOP}, 0, workerData.intervalMs)
    if (Atomics.load(shared, ${STOP}) !== 0) break
    const row = checkpoint.get()
    // busy: another checkpoint runs (the main connection's fallback): try at the next tick.
    if (row.busy === 0 && row.checkpointed > 0) {
      Atomics.add(shared, ${CHECKPOINTS}, 1)
      Atomics.add(shared, ${FRAMES}, row.checkpointed)
    }
  }
} catch (error) {
  parentPort.postMessage({ error: error instanceof Error ? error.message : String(error) })
} finally {
  try { db?.close() } catch {}
  Atomics.store(shared, ${STOPPED}, 1)
  Atomics.notify(shared, ${STOPPED})
}
`

/**
 * Moves a ledger's WAL checkpoints off the process' JS thread, from `startAfterMs` after the start. With `synchronous=FULL`, SQLite
 * copies the WAL into the database file and fsyncs it inside whichever commit crosses
 * `wal_autocheckpoint` (every thousand pages): a commit of 0.5 ms then takes 10 to 90 ms, and every
 * execution waiting for the JS thread waits with it. Here a worker thread, on a connection of its
 * own, runs a PASSIVE checkpoint every `intervalMs`: it never blocks the writer (SQLite's WAL lets
 * a checkpoint and a writer run at once) and a kill in the middle of one loses nothing (SQLite
 * redoes it from the WAL). The main connection keeps a far larger `wal_autocheckpoint` as a safety
 * net for a worker that cannot keep up, and goes back to SQLite's default if the worker fails.
 *
 * @example
 * const checkpointer = startWalCheckpointer({ db, path })
 * // … writes …
 * checkpointer.stop()
 * db.close()
 */
export function startWalCheckpointer(parameters: StartWalCheckpointerParameters): WalCheckpointer {
  const { db, path } = parameters
  const shared = new Int32Array(new SharedArrayBuffer(5 * Int32Array.BYTES_PER_ELEMENT))
  let state: WalCheckpointer['state'] = 'running'
  const fallBackInline = (error: Error) => {
    if (state !== 'running') return
    state = 'inline'
    if (db.open) db.pragma(`wal_autocheckpoint = ${inlineAutocheckpointPages}`)
    error.message += '; SQLite checkpoints inside commits again (nothing is lost, commits are slower)'
    parameters.onError?.(error)
  }
  db.pragma(`wal_autocheckpoint = ${parameters.fallbackPages ?? 10_000}`)
  const spawn = () => {
    const worker = new Worker(workerSource, {
      eval: true,
      workerData: {
        driver: parameters.driver ?? createRequire(import.meta.url).resolve('better-sqlite3'),
        path,
        shared: shared.buffer,
        intervalMs: parameters.intervalMs ?? 100,
      },
      // A checkpointer never keeps the process alive, nor inherits its flags (--cpu-prof, loaders).
      execArgv: [],
      stdout: false,
      stderr: false,
    })
    worker.unref()
    worker.on('message', (message: { error?: string }) => {
      if (message.error) fallBackInline(new Error(`WAL checkpointer of ${path}: ${message.error}`))
    })
    worker.on('error', (error) => fallBackInline(new Error(`WAL checkpointer of ${path}: ${error.message}`)))
    worker.on('exit', () => {
      if (state === 'running') fallBackInline(new Error(`WAL checkpointer of ${path} stopped`))
    })
  }
  const startAfterMs = parameters.startAfterMs ?? 1000
  const startTimer = startAfterMs > 0 ? setTimeout(spawn, startAfterMs).unref() : undefined
  if (!startTimer) spawn()
  return {
    get state() {
      return state
    },
    get counts() {
      return { checkpoints: Atomics.load(shared, CHECKPOINTS), framesCopied: Atomics.load(shared, FRAMES) }
    },
    stop(timeoutMs = 2000) {
      if (state === 'stopped') return
      state = 'stopped'
      clearTimeout(startTimer)
      Atomics.store(shared, STOP, 1)
      Atomics.notify(shared, STOP)
      // A worker with its connection open closes it first, so that the main connection, closing
      // last, checkpoints and removes the WAL. One still starting (a short-lived open) is not
      // waited for: it stops at its first look at the flag, and its close is as safe as any.
      if (Atomics.load(shared, STARTED) === 1) Atomics.wait(shared, STOPPED, 0, timeoutMs)
    },
  }
}
