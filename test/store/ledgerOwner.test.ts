import type { ChildProcess } from 'node:child_process'
import { hostname } from 'node:os'
import Database from 'better-sqlite3'
import { afterEach, describe, expect, it } from 'vitest'
import { type Ledger, LedgerError, openLedger } from '../../src/store/index.js'
import { processStartOf } from '../../src/store/ledgerOwner.js'
import { builtFixture } from '../helpers/builtFixture.js'
import { exitOf, spawnNode } from '../helpers/processes.js'
import { ledgerFolder } from './ledgerFiles.js'

// One writer per ledger, across real processes: test/store/fixtures/ledgerOwnerChild.ts opens a
// ledger file as its writer and holds it; this process tries to open the same file.

const folder = ledgerFolder()
const children = new Set<ChildProcess>()

afterEach(() => {
  for (const child of children)
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
  children.clear()
})

/** Starts an owner process; resolves with its first line ("ready" or "refused <code>"). */
async function startOwner(path: string, controlUrl?: string): Promise<{ child: ChildProcess; line: string }> {
  const child = spawnNode([
    builtFixture('test/store/fixtures/ledgerOwnerChild.ts'),
    path,
    ...(controlUrl ? [controlUrl] : []),
  ])
  children.add(child)
  let stdout = ''
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => {
    stderr += chunk.toString()
  })
  const line = await new Promise<string>((resolve, reject) => {
    child.stdout?.on('data', (chunk: Buffer) => {
      stdout += chunk.toString()
      const newline = stdout.indexOf('\n')
      if (newline >= 0) resolve(stdout.slice(0, newline))
    })
    // 'close' comes after the output is read: a refused child's line arrives first.
    child.once('close', (code) =>
      reject(new Error(`owner exited with ${code}, printing nothing:\n${stderr}`)),
    )
  })
  return { child, line }
}

function ledgerError(run: () => unknown): LedgerError {
  try {
    run()
  } catch (error) {
    if (error instanceof LedgerError) return error
    throw error
  }
  throw new Error('expected a LedgerError, nothing was thrown')
}

type OwnerRow = { pid: number; host: string; command: string; control_url: string | null }

/** The owner row, read through a plain SQLite connection (no ledger, no claim). */
function ownerRow(path: string): OwnerRow | undefined {
  const db = new Database(path, { readonly: true })
  try {
    return db.prepare<[], OwnerRow>('SELECT pid, host, command, control_url FROM ledger_owner').get()
  } finally {
    db.close()
  }
}

/** A ledger file, migrated and closed, with an owner row as another process would have left it. */
function ledgerOwnedBy(row: { pid: number; host: string; processStart: string | null; heartbeatMs: number }) {
  const path = folder.path()
  const setup = openLedger({ path, owner: false })
  setup.database
    .prepare(
      `INSERT INTO ledger_owner (id, pid, host, process_start, command, control_url, since_ms, heartbeat_ms)
       VALUES (1, ?, ?, ?, 'elsewhere', NULL, ?, ?)`,
    )
    .run(row.pid, row.host, row.processStart, row.heartbeatMs, row.heartbeatMs)
  setup.close()
  return path
}

describe('one writer per ledger', () => {
  it('refuses a second process while the owner lives, naming it; readers and owner: false still work; a killed owner is taken over', async () => {
    const path = folder.path()
    const { child, line } = await startOwner(path, 'http://127.0.0.1:7777')
    expect(line).toBe('ready')
    const pid = child.pid as number

    const refused = ledgerError(() => openLedger({ path }))
    expect(refused.code).toBe('LEDGER_IN_USE')
    expect(refused.details).toMatchObject({
      path,
      pid,
      host: hostname(),
      command: 'ledger-owner fixture',
      controlUrl: 'http://127.0.0.1:7777',
    })
    expect(refused.details.since).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
    expect(refused.shortMessage).toContain(`process ${pid} on ${hostname()} (ledger-owner fixture)`)
    expect(refused.shortMessage).toContain(`its writer since ${String(refused.details.since)}`)
    expect(refused.shortMessage).toContain('control API http://127.0.0.1:7777')
    expect(refused.shortMessage).toContain(
      'stop that process, or go through its control API (e.g. POST /v1/swaps',
    )
    expect(ownerRow(path)?.pid).toBe(pid) // the refused open wrote nothing

    // A report reads beside the owner; `owner: false` (stockroute halt) writes beside it.
    const reader = openLedger({ path, readonly: true })
    expect(reader.owner).toBeUndefined()
    expect(reader.risk.isHalted()).toBe(false)
    const halt = openLedger({ path, owner: false })
    expect(halt.owner).toBeUndefined()
    halt.risk.halt('operator: halt beside the daemon')
    halt.close()
    expect(reader.risk.isHalted()).toBe(true)
    reader.close()
    expect(ownerRow(path)?.pid).toBe(pid)

    child.kill('SIGKILL')
    expect(await exitOf(child)).toEqual({ code: null, signal: 'SIGKILL' })
    const heir = openLedger({ path, owner: { command: 'heir' } })
    expect(heir.owner?.takenOverFrom).toMatchObject({ pid, command: 'ledger-owner fixture' })
    expect(heir.owner?.record()).toMatchObject({ pid: process.pid, command: 'heir', controlUrl: null })
    expect(heir.risk.isHalted()).toBe(true) // the ledger is whole
    heir.close()
    expect(ownerRow(path)).toBeUndefined()
  })

  it('a clean close of the owner releases the ledger', async () => {
    const path = folder.path()
    const { child, line } = await startOwner(path)
    expect(line).toBe('ready')
    expect(ownerRow(path)).toMatchObject({
      pid: child.pid,
      command: 'ledger-owner fixture',
      control_url: null,
    })
    child.kill('SIGTERM')
    expect(await exitOf(child)).toEqual({ code: 0, signal: null })
    expect(ownerRow(path)).toBeUndefined()
    const next = openLedger({ path })
    expect(next.owner?.takenOverFrom).toBeUndefined()
    next.close()
  })

  it('two processes opening at once: exactly one owns the ledger', async () => {
    const path = folder.path()
    openLedger({ path, owner: false }).close()
    const lines = (await Promise.all([startOwner(path), startOwner(path)])).map((started) => started.line)
    expect(lines.sort()).toEqual(['ready', 'refused LEDGER_IN_USE'])
  })

  it('a live pid whose start time differs from the recorded one was reused: the ledger is taken over', () => {
    // pid 1 always runs; the recorded start time says the owner was another process with that pid.
    const reused = ledgerOwnedBy({ pid: 1, host: hostname(), processStart: '-1', heartbeatMs: Date.now() })
    const ledger = openLedger({ path: reused })
    expect(ledger.owner?.takenOverFrom).toMatchObject({ pid: 1, processStart: '-1' })
    ledger.close()

    // With its real start time, pid 1 is a live owner.
    const start = processStartOf(1)
    if (start === undefined) return // no /proc: start times are not recorded
    const live = ledgerOwnedBy({ pid: 1, host: hostname(), processStart: start, heartbeatMs: Date.now() })
    expect(ledgerError(() => openLedger({ path: live })).details).toMatchObject({
      pid: 1,
      command: 'elsewhere',
    })
  })

  it('an owner on another host counts as alive until its heartbeat is a minute old', () => {
    const host = 'another-host.invalid'
    const fresh = ledgerOwnedBy({ pid: 4242, host, processStart: null, heartbeatMs: Date.now() - 30_000 })
    expect(ledgerError(() => openLedger({ path: fresh })).details).toMatchObject({ pid: 4242, host })

    const stale = ledgerOwnedBy({ pid: 4242, host, processStart: null, heartbeatMs: Date.now() - 61_000 })
    const ledger = openLedger({ path: stale })
    expect(ledger.owner?.takenOverFrom).toMatchObject({ pid: 4242, host })
    ledger.close()
  })

  it('connections of one process share the claim; the last close releases it', () => {
    const path = folder.path()
    let clock = 1_000
    const first = openLedger({ path, now: () => clock })
    const second: Ledger = openLedger({ path, now: () => clock })
    expect(second.owner?.record()).toMatchObject({ pid: process.pid, sinceMs: 1_000 })

    clock = 2_000
    expect(second.owner?.heartbeat()).toBe(true)
    second.owner?.setControlUrl('http://127.0.0.1:8645')
    expect(first.owner?.record()).toMatchObject({ heartbeatMs: 2_000, controlUrl: 'http://127.0.0.1:8645' })

    first.close()
    expect(ownerRow(path)?.pid).toBe(process.pid)
    second.close()
    expect(ownerRow(path)).toBeUndefined()
  })
})
