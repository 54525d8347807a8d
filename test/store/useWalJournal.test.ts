import { spawn } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { LedgerError } from '../../src/store/index.js'
import { useWalJournal } from '../../src/store/useWalJournal.js'
import { repoRoot } from '../helpers/processes.js'
import { ledgerFolder } from './ledgerFiles.js'

const folder = ledgerFolder()
const opened: Database.Database[] = []
afterEach(() => {
  for (const db of opened.splice(0)) db.close()
})

/** A new SQLite file in the rollback journal, as a ledger is before its first open finishes. */
function newRollbackFile(): { path: string; db: Database.Database } {
  const path = folder.path()
  const db = new Database(path, { timeout: 5000 })
  opened.push(db)
  db.exec('CREATE TABLE t (x INTEGER)')
  return { path, db }
}

/**
 * Another process holds a write transaction on `path` until `release()` (as the other process does
 * while it switches a new ledger to WAL or migrates it); `release` is synchronous, so that it can
 * be called from inside useWalJournal's retry loop. The switch to WAL reads the file's header
 * first, then asks for the write lock; SQLite refuses that upgrade at once, without the busy
 * handler (two readers waiting on each other's upgrade would deadlock). Resolves once the lock is
 * held.
 */
async function holdWriteLock(path: string): Promise<{ release: () => void; released: Promise<void> }> {
  const releaseFile = `${path}.release`
  const script = `
    const { existsSync } = require('node:fs')
    const db = new (require('better-sqlite3'))(process.argv[1])
    db.prepare('BEGIN IMMEDIATE').run()
    process.stdout.write('held\\n')
    const poll = setInterval(() => {
      if (!existsSync(process.argv[2])) return
      clearInterval(poll)
      db.prepare('COMMIT').run()
      db.close()
    }, 5)`
  const child = spawn(process.execPath, ['-e', script, path, releaseFile], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const released = new Promise<void>((resolve, reject) =>
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`lock holder exited ${code}`)))),
  )
  await new Promise<void>((resolve, reject) => {
    child.stdout.once('data', () => resolve())
    child.once('error', reject)
  })
  return { release: () => writeFileSync(releaseFile, ''), released }
}

/** Blocks the thread for `ms`, as useWalJournal's own pause does. */
function blockFor(ms: number) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}

describe('useWalJournal', () => {
  it('waits while another process holds the new file, then switches it to WAL', async () => {
    const { path, db } = newRollbackFile()
    const holder = await holdWriteLock(path)
    // The bare pragma is refused at once here (this is the race the helper exists for).
    expect(() => db.pragma('journal_mode = WAL')).toThrow(/database is locked/)
    // The holder lets go once the helper has been refused and is waiting: it must try again.
    let pauses = 0
    useWalJournal({
      db,
      path,
      timeoutMs: 10_000,
      pause: (ms) => {
        if (++pauses === 1) holder.release()
        blockFor(ms)
      },
    })
    expect(pauses).toBeGreaterThanOrEqual(1)
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal')
    await holder.released
  })

  it('gives up with LEDGER_OPEN_FAILED once the timeout passes on its clock, naming the file', async () => {
    const { path, db } = newRollbackFile()
    const holder = await holdWriteLock(path)
    // Its clock moves only by its own pauses of 5 ms: the timeout of 100 ms is 20 of them.
    let nowMs = 0
    let pauses = 0
    let error: unknown
    try {
      useWalJournal({
        db,
        path,
        timeoutMs: 100,
        now: () => nowMs,
        pause: (ms) => {
          pauses += 1
          nowMs += ms
          // A helper that ignored its timeout would loop for ever here, the thread blocked.
          if (pauses > 1_000) throw new Error('still trying after 1000 pauses')
        },
      })
    } catch (caught) {
      error = caught
    } finally {
      holder.release()
    }
    expect(pauses).toBe(20)
    expect(error).toBeInstanceOf(LedgerError)
    expect((error as LedgerError).code).toBe('LEDGER_OPEN_FAILED')
    expect((error as LedgerError).shortMessage).toContain(path)
    expect(db.pragma('journal_mode', { simple: true })).toBe('delete')
    await holder.released
  })
})
