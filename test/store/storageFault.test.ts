import { spawn } from 'node:child_process'
import { chmodSync, readFileSync } from 'node:fs'
import { dirname } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { type Ledger, LedgerError, type NewExecution, openLedger } from '../../src/store/index.js'
import { type StorageFault, storageFaultOf } from '../../src/store/storageFault.js'
import { builtFixture } from '../helpers/builtFixture.js'
import { repoRoot } from '../helpers/processes.js'
import { ledgerFolder } from './ledgerFiles.js'

const folder = ledgerFolder()

afterEach(() => {
  vi.unstubAllEnvs()
})

/** An execution whose creating event has a long reason: a few of them fill a page. */
function bigExecution(index: number): NewExecution {
  return {
    intentId: `intent-${index}`,
    chainId: 31337,
    ticker: 'AAPL',
    exchange: 0,
    side: 'buy',
    amountIn: '1000',
    amountType: 'stablecoin',
    reason: `recorded ${index} ${'x'.repeat(1500)}`,
  }
}

function pageCount(ledger: Ledger): number {
  return ledger.database.pragma('page_count', { simple: true }) as number
}

/** Creates executions until a write fails; returns how many were created and the error. */
function fillUp(ledger: Ledger, from = 0): { created: number; error: unknown } {
  for (let index = from; index < from + 1000; index++) {
    try {
      ledger.executions.createExecution(bigExecution(index))
    } catch (error) {
      return { created: index - from, error }
    }
  }
  throw new Error('1000 executions fit under the page limit: the limit is not applied')
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve))

describe('storage faults', () => {
  it('disk full: the failing write leaves nothing, the fault is set once and heard once, reads go on', async () => {
    const path = folder.path()
    const setup = openLedger({ path, owner: false })
    const pages = pageCount(setup)
    setup.close()

    let clock = 1_750_000_000_000
    const ledger = openLedger({ path, maxPageCount: pages + 6, now: () => clock })
    expect(ledger.storageFault).toBeUndefined()
    const heard: StorageFault[] = []
    ledger.onStorageFault((fault) => heard.push(fault))

    const { created, error } = fillUp(ledger)
    expect(created).toBeGreaterThan(0)
    expect(error).toBeInstanceOf(Database.SqliteError) // rethrown as it was
    expect((error as { code: string }).code).toBe('SQLITE_FULL')
    expect(ledger.storageFault).toEqual({
      code: 'SQLITE_FULL',
      reason: expect.stringContaining(
        `the disk is full: a write to the ledger ${path} failed with SQLITE_FULL`,
      ),
      remedy: expect.stringContaining(`free space on the disk of ${path}`),
      atMs: 1_750_000_000_000,
    })
    expect(ledger.storageFault?.remedy).toContain('then restart stockroute')

    // Listeners hear it in a microtask, once, whatever fails after; a late one hears it too.
    expect(heard).toEqual([])
    await nextTurn()
    expect(heard).toEqual([ledger.storageFault])
    clock += 1
    expect(() => ledger.executions.createExecution(bigExecution(9_999))).toThrow(/database or disk is full/)
    // Several repositories in one transaction: the kill switch latched first is rolled back with the rest.
    expect(() =>
      ledger.atomically(() => {
        ledger.risk.halt('latched inside the failing transaction')
        ledger.executions.createExecution(bigExecution(10_000))
      }),
    ).toThrow(/database or disk is full/)
    const late = vi.fn()
    ledger.onStorageFault(late)
    await nextTurn()
    expect(heard).toHaveLength(1)
    expect(late).toHaveBeenCalledExactlyOnceWith(ledger.storageFault)
    expect(ledger.storageFault?.atMs).toBe(1_750_000_000_000) // the first fault wins

    // Reads go on: the executions that fitted, none of the failed ones, the kill switch untouched.
    expect(ledger.executions.getExecutionByIntent(`intent-${created}`)).toBeUndefined()
    expect(ledger.executions.getExecutionByIntent('intent-10000')).toBeUndefined()
    expect(ledger.executions.getExecutionByIntent(`intent-${created - 1}`)?.state).toBe('intent')
    expect(ledger.risk.isHalted()).toBe(false)
    ledger.close()

    // Reopened without the limit: the file is sound, holds exactly what committed, and takes writes.
    const reopened = openLedger({ path })
    expect(reopened.database.pragma('integrity_check', { simple: true })).toBe('ok')
    const count = (sql: string) => (reopened.database.prepare(sql).get() as { n: number }).n
    expect(count('SELECT count(*) AS n FROM executions')).toBe(created)
    expect(count('SELECT count(*) AS n FROM execution_events')).toBe(created)
    expect(count('SELECT count(*) AS n FROM kill_switch_events')).toBe(0)
    reopened.executions.createExecution(bigExecution(created))
    expect(reopened.storageFault).toBeUndefined()
    reopened.close()
  })

  it('STOCKROUTE_LEDGER_MAX_PAGES is the fault switch when the option is not given', () => {
    const path = folder.path()
    const setup = openLedger({ path, owner: false })
    const pages = pageCount(setup)
    setup.close()

    vi.stubEnv('STOCKROUTE_LEDGER_MAX_PAGES', String(pages + 3))
    const ledger = openLedger({ path })
    expect(ledger.database.pragma('max_page_count', { simple: true })).toBe(pages + 3)
    expect((fillUp(ledger).error as { code: string }).code).toBe('SQLITE_FULL')
    expect(ledger.storageFault?.code).toBe('SQLITE_FULL')
    ledger.close()

    // The option wins over the environment; a reader is never limited.
    const explicit = openLedger({ path, maxPageCount: 1_000_000 })
    expect(explicit.database.pragma('max_page_count', { simple: true })).toBe(1_000_000)
    explicit.close()

    vi.stubEnv('STOCKROUTE_LEDGER_MAX_PAGES', 'lots')
    let refused: unknown
    try {
      openLedger({ path })
    } catch (error) {
      refused = error
    }
    expect(refused).toBeInstanceOf(LedgerError)
    expect((refused as LedgerError).code).toBe('LEDGER_OPEN_FAILED')
    expect((refused as LedgerError).shortMessage).toContain('STOCKROUTE_LEDGER_MAX_PAGES=lots')
  })

  it('errors that are no storage fault (a duplicate intent, bad input) set nothing', () => {
    const ledger = openLedger({ path: folder.path() })
    ledger.executions.createExecution(bigExecution(1))
    expect(() => ledger.executions.createExecution(bigExecution(1))).toThrow()
    expect(() => ledger.executions.createExecution({ ...bigExecution(2), amountIn: 'lots' })).toThrow()
    expect(() =>
      ledger.atomically(() => {
        throw new Error('work failed')
      }),
    ).toThrow('work failed')
    expect(ledger.storageFault).toBeUndefined()
    ledger.close()
  })

  it('a read-only ledger file: SQLITE_READONLY is a storage fault, and the file is untouched', async () => {
    const path = folder.path()
    const setup = openLedger({ path })
    setup.executions.createExecution(bigExecution(1))
    setup.close()
    const before = readFileSync(path)
    chmodSync(path, 0o444)
    // root writes through any file mode: the writer runs as `nobody` then (the folder lets it make
    // the -wal and -shm files, as a real deployment's folder would).
    const asRoot = process.getuid?.() === 0
    if (asRoot) chmodSync(dirname(path), 0o777)
    const child = spawn(process.execPath, [builtFixture('test/store/fixtures/storageFaultChild.ts'), path], {
      cwd: repoRoot,
      stdio: ['ignore', 'pipe', 'pipe'],
      ...(asRoot ? { uid: 65534, gid: 65534 } : {}),
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
    })
    child.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString()
    })
    const code = await new Promise((resolve) => child.once('close', resolve))
    expect(code, stderr).toBe(0)
    const seen = JSON.parse(stdout) as {
      errorCode: string
      fault: StorageFault
      heard: StorageFault[]
      halted: boolean
    }
    expect(seen.errorCode).toBe('SQLITE_READONLY')
    expect(seen.fault).toMatchObject({
      code: 'SQLITE_READONLY',
      reason: expect.stringContaining('the ledger is read-only'),
      remedy: expect.stringContaining(`make ${path} and its folder writable`),
    })
    expect(seen.heard).toEqual([seen.fault])
    expect(seen.halted).toBe(false)
    expect(readFileSync(path).equals(before)).toBe(true)
  })

  it('faults the real thing cannot produce on demand (constructed SqliteErrors): I/O error, corruption', () => {
    const path = '/data/stockroute.sqlite'
    const io = storageFaultOf(new Database.SqliteError('disk I/O error', 'SQLITE_IOERR_WRITE'), path, 5)
    expect(io).toMatchObject({ code: 'SQLITE_IOERR_WRITE', atMs: 5 })
    expect(io?.reason).toContain('I/O error')
    expect(io?.remedy).toMatch(/check the disk of \/data\/stockroute\.sqlite.*restore it from a backup/)
    const corrupt = storageFaultOf(new Database.SqliteError('malformed', 'SQLITE_CORRUPT'), path, 5)
    expect(corrupt?.remedy).toContain('restore the ledger from a backup')
    expect(storageFaultOf(new Database.SqliteError('not a database', 'SQLITE_NOTADB'), path, 5)?.code).toBe(
      'SQLITE_NOTADB',
    )
    expect(
      storageFaultOf(new Database.SqliteError('moved', 'SQLITE_READONLY_DBMOVED'), path, 5)?.remedy,
    ).toContain('writable')
    expect(storageFaultOf(new Database.SqliteError('no', 'SQLITE_CANTOPEN'), path, 5)?.code).toBe(
      'SQLITE_CANTOPEN',
    )
    // Found through a wrapping error's cause; never for other SQLite errors or plain errors.
    const wrapped = new Error('recording the fill failed', {
      cause: new Database.SqliteError('database or disk is full', 'SQLITE_FULL'),
    })
    expect(storageFaultOf(wrapped, path, 5)?.code).toBe('SQLITE_FULL')
    expect(
      storageFaultOf(new Database.SqliteError('unique', 'SQLITE_CONSTRAINT_UNIQUE'), path, 5),
    ).toBeUndefined()
    expect(storageFaultOf(new Database.SqliteError('locked', 'SQLITE_BUSY'), path, 5)).toBeUndefined()
    expect(storageFaultOf(new Error('SQLITE_FULL'), path, 5)).toBeUndefined()
  })
})
