import { existsSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import {
  LedgerError,
  latestSchemaVersion,
  ledgerApplicationId,
  migrations,
  openLedger,
} from '../../src/store/index.js'
import { ledgerFolder } from './ledgerFiles.js'

const folder = ledgerFolder()

function ledgerError(run: () => unknown): LedgerError {
  try {
    run()
  } catch (error) {
    if (error instanceof LedgerError) return error
    throw error
  }
  throw new Error('expected a LedgerError, nothing was thrown')
}

const expectedTables = [
  'chain_assets',
  'checkpoints',
  'entry_halts',
  'equity_marks',
  'equity_peaks',
  'events',
  'execution_events',
  'execution_quotes',
  'executions',
  'fills',
  'income',
  'kill_switch',
  'kill_switch_events',
  'ledger_days',
  'ledger_owner',
  'nonces',
  'notification_cursors',
  'notification_outbox',
  'open_allowances',
  'position_adjustments',
  'position_renames',
  'positions',
  'protective_exits',
  'protective_state',
  'schema_migrations',
  'strategy_switches',
  'transaction_outcomes',
  'transactions',
  'wallet_fences',
]

describe('openLedger', () => {
  it('creates the file and its parent folders, applies every migration, and records them', () => {
    const path = join(dirname(folder.path()), 'nested', 'deeper', 'ledger.sqlite')
    const ledger = openLedger({ path, now: () => 1_700_000_000_000 })
    expect(existsSync(path)).toBe(true)
    expect(ledger.schemaVersion).toBe(latestSchemaVersion)
    const tables = ledger.database
      .prepare<[], { name: string }>(
        "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name",
      )
      .all()
      .map((row) => row.name)
    expect(tables).toEqual(expectedTables)
    expect(
      ledger.database.prepare('SELECT version, name, applied_at_ms FROM schema_migrations').all(),
    ).toEqual(
      migrations.map((migration) => ({
        version: migration.version,
        name: migration.name,
        applied_at_ms: 1_700_000_000_000,
      })),
    )
    // No index repeats another (same table, columns and condition): each costs every write.
    const indices = ledger.database
      .prepare<[], { name: string; tbl_name: string; sql: string }>(
        "SELECT name, tbl_name, sql FROM sqlite_schema WHERE type = 'index' AND sql IS NOT NULL",
      )
      .all()
    const shapes = indices.map(
      (index) =>
        `${index.tbl_name}: ${index.sql.replace(/^CREATE (UNIQUE )?INDEX \S+ ON \S+/, '$1').replace(/\s+/g, ' ')}`,
    )
    expect(
      indices.filter((_, at) => shapes.indexOf(shapes[at] as string) !== at).map((index) => index.name),
    ).toEqual([])
    ledger.close()
    ledger.close() // idempotent
  })

  it('re-opens an existing ledger without applying anything twice, keeping its data', () => {
    const path = folder.path()
    const first = openLedger({ path, now: () => 1 })
    first.checkpoints.advanceCheckpoint(31337, 42n)
    first.close()
    const second = openLedger({ path, now: () => 2 })
    expect(second.schemaVersion).toBe(latestSchemaVersion)
    expect(second.database.prepare('SELECT applied_at_ms FROM schema_migrations').all()).toEqual(
      migrations.map(() => ({ applied_at_ms: 1 })),
    )
    expect(second.checkpoints.getCheckpoint(31337)).toBe(42n)
    second.close()
  })

  it('runs with WAL, synchronous=FULL, foreign keys and a busy timeout, read back from SQLite', () => {
    const path = folder.path()
    const ledger = openLedger({ path, busyTimeoutMs: 1234 })
    const pragma = (name: string) => ledger.database.pragma(name, { simple: true })
    expect(pragma('journal_mode')).toBe('wal')
    expect(pragma('synchronous')).toBe(2) // FULL
    expect(pragma('foreign_keys')).toBe(1)
    expect(pragma('busy_timeout')).toBe(1234)
    expect(pragma('application_id')).toBe(ledgerApplicationId)
    ledger.close()
    // WAL is a property of the file: a plain connection sees it too.
    const plain = new Database(path)
    expect(plain.pragma('journal_mode', { simple: true })).toBe('wal')
    plain.close()
  })

  it('refuses a ledger written by a newer stockroute, and changes nothing in it', () => {
    const path = folder.path()
    openLedger({ path }).close()
    const raw = new Database(path)
    raw
      .prepare('INSERT INTO schema_migrations (version, name, applied_at_ms) VALUES (?, ?, ?)')
      .run(latestSchemaVersion + 1, 'from-the-future', 0)
    raw.close()
    const error = ledgerError(() => openLedger({ path }))
    expect(error.code).toBe('LEDGER_TOO_NEW')
    expect(error.shortMessage).toContain(`schema version ${latestSchemaVersion + 1}`)
    expect(error.shortMessage).toContain('upgrade stockroute')
    expect(ledgerError(() => openLedger({ path, readonly: true })).code).toBe('LEDGER_TOO_NEW')
  })

  it('refuses a ledger whose applied migration is not the one this build has at that number', () => {
    const path = folder.path()
    openLedger({ path }).close()
    const raw = new Database(path)
    raw.prepare("UPDATE schema_migrations SET name = 'something-else' WHERE version = 1").run()
    raw.close()
    expect(ledgerError(() => openLedger({ path })).code).toBe('LEDGER_SCHEMA_MISMATCH')
  })

  it('refuses a SQLite file of another program, and a file that is not SQLite', () => {
    const foreign = folder.path()
    const raw = new Database(foreign)
    raw.exec('CREATE TABLE notes (text TEXT)')
    raw.close()
    expect(ledgerError(() => openLedger({ path: foreign })).code).toBe('LEDGER_NOT_STOCKROUTE')

    const garbage = folder.path()
    writeFileSync(
      garbage,
      'this is not a database, just text that is long enough to have a header'.repeat(20),
    )
    expect(ledgerError(() => openLedger({ path: garbage })).code).toBe('LEDGER_OPEN_FAILED')
  })

  it('applies each migration in its own transaction: a failing one rolls back alone', () => {
    const path = folder.path()
    const withExtra = [
      ...migrations,
      { version: migrations.length + 1, name: 'good', sql: 'CREATE TABLE extra_good (x INTEGER) STRICT;' },
      {
        version: migrations.length + 2,
        name: 'bad',
        sql: 'CREATE TABLE extra_bad (x INTEGER) STRICT; INSERT INTO no_such_table VALUES (1);',
      },
    ]
    const error = ledgerError(() => openLedger({ path, migrations: withExtra }))
    expect(error.code).toBe('LEDGER_MIGRATION_FAILED')
    expect(error.shortMessage).toContain(`stays at version ${migrations.length + 1}`)
    const raw = new Database(path)
    const has = (table: string) =>
      raw.prepare('SELECT count(*) AS n FROM sqlite_schema WHERE name = ?').pluck().get(table) === 1
    expect(has('extra_good')).toBe(true)
    expect(has('extra_bad')).toBe(false)
    expect(raw.prepare('SELECT max(version) FROM schema_migrations').pluck().get()).toBe(
      migrations.length + 1,
    )
    raw.close()
  })

  it('read-only: needs an existing, current file and never writes', () => {
    const missing = folder.path()
    expect(ledgerError(() => openLedger({ path: missing, readonly: true })).code).toBe('LEDGER_NOT_FOUND')
    expect(existsSync(missing)).toBe(false)

    const path = folder.path()
    const writer = openLedger({ path })
    writer.risk.halt('maintenance')
    const reader = openLedger({ path, readonly: true })
    expect(reader.readonly).toBe(true)
    expect(reader.risk.isHalted()).toBe(true)
    expect(() => reader.risk.resume()).toThrow(/readonly/)
    reader.close()
    writer.close()

    const newerBuild = [...migrations, { version: migrations.length + 1, name: 'next', sql: 'SELECT 1;' }]
    const behind = ledgerError(() => openLedger({ path, readonly: true, migrations: newerBuild }))
    expect(behind.code).toBe('LEDGER_NEEDS_MIGRATION')
    const reopened = openLedger({ path, migrations: newerBuild })
    expect(reopened.schemaVersion).toBe(migrations.length + 1)
    reopened.close()
  })
})
