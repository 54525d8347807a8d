import { existsSync } from 'node:fs'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { openLedger } from '../../src/store/index.js'
import { startWalCheckpointer } from '../../src/store/walCheckpointer.js'
import { builtFixture } from '../helpers/builtFixture.js'
import { spawnNode } from '../helpers/processes.js'
import { intent, ledgerFolder } from './ledgerFiles.js'

const folder = ledgerFolder()

/** Polls `condition` every 20 ms for up to `ms`. */
async function eventually(condition: () => boolean, ms = 10_000): Promise<boolean> {
  const until = Date.now() + ms
  while (!condition()) {
    if (Date.now() > until) return false
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  return true
}

describe('the background WAL checkpointer', () => {
  it('copies the WAL into the database file from its own thread, and the writer no longer does', async () => {
    const path = folder.path()
    const ledger = openLedger({ path })
    try {
      expect(ledger.walCheckpointer?.state).toBe('running')
      // The writer keeps only a far-off safety net of its own.
      expect(ledger.database.pragma('wal_autocheckpoint', { simple: true })).toBe(10_000)
      for (let n = 0; n < 500; n++) ledger.executions.createExecution(intent(`background-${n}`))
      expect(await eventually(() => (ledger.walCheckpointer?.counts.checkpoints ?? 0) > 0)).toBe(true)
      expect(ledger.walCheckpointer?.counts.framesCopied).toBeGreaterThan(0)
    } finally {
      ledger.close()
    }
    // The worker closed first, so the writer's close, the last, folded the WAL in and removed it.
    expect(existsSync(`${path}-wal`)).toBe(false)
    const reader = new Database(path, { readonly: true })
    try {
      expect(reader.prepare('SELECT count(*) AS n FROM executions').get()).toEqual({ n: 500 })
    } finally {
      reader.close()
    }
  })

  it('starts no thread for an open that closes within its first second', () => {
    const path = folder.path()
    const ledger = openLedger({ path })
    ledger.executions.createExecution(intent('short-lived'))
    ledger.close()
    expect(ledger.walCheckpointer?.state).toBe('stopped')
    expect(ledger.walCheckpointer?.counts.checkpoints).toBe(0)
    expect(existsSync(`${path}-wal`)).toBe(false)
  })

  it('is not started for inline or read-only opens', () => {
    const path = folder.path()
    const inline = openLedger({ path, walCheckpoints: 'inline' })
    try {
      expect(inline.walCheckpointer).toBeUndefined()
      expect(inline.database.pragma('wal_autocheckpoint', { simple: true })).toBe(1000)
    } finally {
      inline.close()
    }
    const unowned = openLedger({ path, owner: false })
    const readonly = openLedger({ path, readonly: true })
    try {
      expect(unowned.walCheckpointer).toBeUndefined()
      expect(readonly.walCheckpointer).toBeUndefined()
    } finally {
      readonly.close()
      unowned.close()
    }
  })

  it('hands checkpoints back to the writer when its worker fails', async () => {
    const path = folder.path()
    const ledger = openLedger({ path, walCheckpoints: 'inline' })
    const errors: Error[] = []
    try {
      const checkpointer = startWalCheckpointer({
        db: ledger.database,
        path: ledger.path,
        driver: '/nonexistent/better-sqlite3',
        startAfterMs: 0,
        onError: (error) => errors.push(error),
      })
      expect(await eventually(() => checkpointer.state === 'inline')).toBe(true)
      expect(errors).toHaveLength(1)
      expect(errors[0]?.message).toContain('WAL checkpointer of')
      expect(errors[0]?.message).toContain('SQLite checkpoints inside commits again')
      expect(ledger.database.pragma('wal_autocheckpoint', { simple: true })).toBe(1000)
      checkpointer.stop()
    } finally {
      ledger.close()
    }
  })

  it('loses no committed row when the process is killed while it checkpoints', async () => {
    // The child checkpoints every millisecond while committing one row at a time, so the kills land
    // in checkpoints as well as in commits. Every row it reported committed must be there after.
    for (let round = 1; round <= 3; round++) {
      const path = folder.path()
      const child = spawnNode([builtFixture('test/store/fixtures/walCheckpointerChild.ts'), path])
      let printed = ''
      child.stdout?.on('data', (chunk: Buffer) => {
        printed += chunk.toString()
      })
      const exited = new Promise((resolve) => child.once('exit', resolve))
      // Killed once the checkpointer has copied the WAL a few times, at a moment that moves by round.
      const checkpointsSeen = () =>
        Math.max(0, ...[...printed.matchAll(/checkpoints (\d+)/g)].map((m) => Number(m[1])))
      expect(await eventually(() => checkpointsSeen() >= 3 * round, 30_000)).toBe(true)
      child.kill('SIGKILL')
      await exited
      const reported = printed.split('\n').filter((line) => line.startsWith('kill-'))
      const ledger = openLedger({ path, walCheckpoints: 'inline' })
      try {
        expect(ledger.database.pragma('integrity_check', { simple: true })).toBe('ok')
        const stored = new Set(
          ledger.database
            .prepare<[], { intent_id: string }>('SELECT intent_id FROM executions')
            .all()
            .map((row) => row.intent_id),
        )
        expect(reported.filter((id) => !stored.has(id))).toEqual([])
      } finally {
        ledger.close()
      }
    }
  }, 90_000)
})
