import { spawn } from 'node:child_process'
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
 * Another process holds a write transaction on `path` for `holdMs` (as the other process does while
 * it switches a new ledger to WAL or migrates it). The switch to WAL reads the file's header first,
 * then asks for the write lock; SQLite refuses that upgrade at once, without the busy handler (two
 * readers waiting on each other's upgrade would deadlock). Resolves once the lock is held.
 */
async function holdWriteLock(path: string, holdMs: number): Promise<{ released: Promise<void> }> {
  const script = `
    const db = new (require('better-sqlite3'))(process.argv[1])
    db.prepare('BEGIN IMMEDIATE').run()
    process.stdout.write('held\\n')
    setTimeout(() => { db.prepare('COMMIT').run(); db.close() }, Number(process.argv[2]))`
  const child = spawn(process.execPath, ['-e', script, path, String(holdMs)], {
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
  return { released }
}

describe('useWalJournal', () => {
  it('waits while another process holds the new file, then switches it to WAL', async () => {
    const { path, db } = newRollbackFile()
    const holder = await holdWriteLock(path, 300)
    // The bare pragma is refused at once here (this is the race the helper exists for).
    expect(() => db.pragma('journal_mode = WAL')).toThrow(/database is locked/)
    useWalJournal({ db, path, timeoutMs: 10_000 })
    expect(db.pragma('journal_mode', { simple: true })).toBe('wal')
    await holder.released
  })

  it('gives up with LEDGER_OPEN_FAILED once the timeout passes, naming the file', async () => {
    const { path, db } = newRollbackFile()
    const holder = await holdWriteLock(path, 1000)
    let error: unknown
    try {
      useWalJournal({ db, path, timeoutMs: 100 })
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(LedgerError)
    expect((error as LedgerError).code).toBe('LEDGER_OPEN_FAILED')
    expect((error as LedgerError).shortMessage).toContain(path)
    expect(db.pragma('journal_mode', { simple: true })).toBe('delete')
    await holder.released
  })
})
