import Database from 'better-sqlite3'

/**
 * The ledger's storage failed under a write: the disk is full, the file became read-only, an I/O
 * error, a corrupt file. Set once per open ledger (the first fault wins); nothing is signed while
 * it is set, and the daemon stops.
 */
export type StorageFault = {
  /** The SQLite code, e.g. `SQLITE_FULL`, `SQLITE_IOERR_WRITE`, `SQLITE_READONLY`. */
  code: string
  /** What happened, naming the file. */
  reason: string
  /** What the operator does about it. */
  remedy: string
  /** When it was seen (the ledger's clock). */
  atMs: number
}

type FaultKind = 'full' | 'readonly' | 'io' | 'corrupt' | 'cantopen'

/** The kind of storage fault a SQLite result code is, or undefined for any other error. */
function faultKindOf(code: string): FaultKind | undefined {
  if (code === 'SQLITE_FULL') return 'full'
  if (code === 'SQLITE_READONLY' || code.startsWith('SQLITE_READONLY_')) return 'readonly'
  if (code === 'SQLITE_IOERR' || code.startsWith('SQLITE_IOERR_')) return 'io'
  if (code === 'SQLITE_CORRUPT' || code.startsWith('SQLITE_CORRUPT_') || code === 'SQLITE_NOTADB')
    return 'corrupt'
  if (code === 'SQLITE_CANTOPEN' || code.startsWith('SQLITE_CANTOPEN_')) return 'cantopen'
  return undefined
}

/**
 * The storage fault that `error` (or an error in its `cause` chain) reports, or undefined when it
 * is no storage fault (a constraint, a busy lock, a bad input): only better-sqlite3's `SqliteError`
 * with a code of disk full, read-only, I/O error, corrupt, cannot open or not a database counts.
 *
 * @example
 * try { ledger.fills.recordFill(fill) } catch (error) {
 *   const fault = storageFaultOf(error, ledger.path, Date.now())
 *   if (fault) logger.error(fault, fault.reason)
 * }
 */
export function storageFaultOf(error: unknown, path: string, atMs: number): StorageFault | undefined {
  let current: unknown = error
  for (let depth = 0; depth < 8 && current instanceof Error; depth++) {
    if (current instanceof Database.SqliteError && typeof current.code === 'string') {
      const kind = faultKindOf(current.code)
      if (kind === undefined) return undefined
      return { code: current.code, ...describe(kind, current.code, current.message, path), atMs }
    }
    current = current.cause
  }
  return undefined
}

function describe(
  kind: FaultKind,
  code: string,
  message: string,
  path: string,
): { reason: string; remedy: string } {
  const failed = `a write to the ledger ${path} failed with ${code} (${message}) and was rolled back`
  switch (kind) {
    case 'full':
      return {
        reason: `the disk is full: ${failed}`,
        remedy: `free space on the disk of ${path} (or raise its size limit: quota, volume size, STOCKROUTE_LEDGER_MAX_PAGES), then restart stockroute`,
      }
    case 'readonly':
      return {
        reason: `the ledger is read-only: ${failed}`,
        remedy: `make ${path} and its folder writable by the user running stockroute (check the file mode, the owner and that the disk is not mounted read-only), then restart stockroute`,
      }
    case 'io':
      return {
        reason: `the disk reported an I/O error: ${failed}`,
        remedy: `check the disk of ${path} (kernel log, SMART, free space); if the ledger is damaged (sqlite3 ${path} 'PRAGMA integrity_check'), restore it from a backup, then restart stockroute`,
      }
    case 'corrupt':
      return {
        reason: `the ledger file is damaged: ${failed}`,
        remedy: `check the disk of ${path}, then restore the ledger from a backup (sqlite3 ${path} 'PRAGMA integrity_check' shows the damage) and restart stockroute`,
      }
    case 'cantopen':
      return {
        reason: `the ledger's files cannot be opened: ${failed}`,
        remedy: `check that ${path}, its -wal and -shm files and its folder exist and are writable, and that the disk is mounted, then restart stockroute`,
      }
  }
}

/** Holds the first storage fault of one open ledger and tells the listeners once. */
export type StorageFaultMonitor = {
  readonly fault: StorageFault | undefined
  /** Records the fault `error` reports, if any and if none is recorded yet. Never throws. */
  observe(error: unknown): void
  /** See `Ledger.onStorageFault`. */
  subscribe(listener: (fault: StorageFault) => void): () => void
}

/**
 * A {@link StorageFaultMonitor} for the ledger at `path`. Listeners are called once, in a
 * microtask after the fault is recorded (so never inside the failing transaction); one that
 * subscribes after the fault is called in a microtask too. A listener that throws is ignored.
 */
export function createStorageFaultMonitor(parameters: {
  path: string
  now: () => number
}): StorageFaultMonitor {
  let fault: StorageFault | undefined
  const listeners = new Set<(fault: StorageFault) => void>()
  const notify = (listener: (fault: StorageFault) => void, recorded: StorageFault) =>
    queueMicrotask(() => {
      try {
        listener(recorded)
      } catch {
        // A listener's failure must not hide the storage fault from the others.
      }
    })
  return {
    get fault() {
      return fault
    },
    observe(error) {
      if (fault) return
      let atMs: number
      try {
        atMs = parameters.now()
      } catch {
        atMs = Date.now()
      }
      const seen = storageFaultOf(error, parameters.path, atMs)
      if (!seen) return
      fault = seen
      for (const listener of listeners) notify(listener, seen)
      listeners.clear()
    },
    subscribe(listener) {
      if (fault) {
        notify(listener, fault)
        return () => {}
      }
      listeners.add(listener)
      return () => {
        listeners.delete(listener)
      }
    },
  }
}

/**
 * A copy of `repository` whose functions report the errors they throw to `observe` before
 * rethrowing them (also the rejections of any that return a promise). Other properties are kept.
 * One wrapper for every repository: a storage fault is seen whichever write hits it.
 */
export function observeErrors<T extends object>(repository: T, observe: (error: unknown) => void): T {
  const descriptors = Object.getOwnPropertyDescriptors(repository)
  for (const descriptor of Object.values(descriptors)) {
    const original: unknown = descriptor.value
    if (typeof original !== 'function') continue
    descriptor.value = function (this: unknown, ...args: unknown[]): unknown {
      let result: unknown
      try {
        result = original.apply(this, args)
      } catch (error) {
        observe(error)
        throw error
      }
      if (result instanceof Promise)
        return result.catch((error: unknown) => {
          observe(error)
          throw error
        })
      return result
    }
  }
  return Object.create(Object.getPrototypeOf(repository), descriptors) as T
}
