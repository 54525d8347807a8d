import type Database from 'better-sqlite3'
import { LedgerError } from './ledgerError.js'

export type UseWalJournalParameters = {
  db: Database.Database
  /** The ledger's file, for the error. */
  path: string
  /** How long to keep trying while another process holds the file, ms (the ledger's busy timeout). */
  timeoutMs: number
  /** The clock `timeoutMs` is counted on, ms; default `performance.now` (tests drive their own). */
  now?: (() => number) | undefined
  /** Waits `ms` between tries; default blocks the thread that long (tests drive their own). */
  pause?: ((ms: number) => void) | undefined
}

/** Pause between tries while another connection holds the file, ms. */
const retryPauseMs = 5

/**
 * Switches the ledger's connection to the WAL journal (a no-op when the file already uses it).
 *
 * Why the retry: turning a new file to WAL takes an exclusive lock, and when two processes open
 * the same new ledger at once (the daemon and the CLI, or two workers), SQLite refuses one of them
 * with `SQLITE_BUSY` at once, without calling the busy handler (waiting could deadlock the two
 * readers). It is safe to try again once the other has switched, so this waits, blocking the
 * thread as the busy handler would, up to `timeoutMs`. Throws {@link LedgerError}
 * (`LEDGER_OPEN_FAILED`) when the file cannot use WAL or stays locked.
 *
 * @example
 * useWalJournal({ db, path, timeoutMs: 5000 })
 */
export function useWalJournal({
  db,
  path,
  timeoutMs,
  now = () => performance.now(),
  pause = blockFor,
}: UseWalJournalParameters): void {
  const deadline = now() + timeoutMs
  let mode: unknown
  for (;;) {
    try {
      mode = db.pragma('journal_mode = WAL', { simple: true })
      break
    } catch (error) {
      if ((error as { code?: unknown }).code !== 'SQLITE_BUSY' || now() >= deadline)
        throw new LedgerError({
          code: 'LEDGER_OPEN_FAILED',
          shortMessage: `Cannot switch the ledger ${path} to a WAL journal: ${(error as Error).message}. Another process may hold it; try again, or stop that process.`,
          details: { path, timeoutMs },
          cause: error,
        })
      pause(retryPauseMs)
    }
  }
  if (mode !== 'wal')
    throw new LedgerError({
      code: 'LEDGER_OPEN_FAILED',
      shortMessage: `The ledger ${path} cannot use a WAL journal (got ${String(mode)}): use a file on a local disk, not :memory: or a network share.`,
      details: { path, journalMode: mode },
    })
}

/** Blocks the thread for `ms`, as SQLite's busy handler would. */
function blockFor(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}
