// The ledger file's identity and schema version: a stockroute file (application_id), the migrations
// it has applied against the ones this build knows, and applying the missing ones.
import type Database from 'better-sqlite3'
import { LedgerError, ledgerApplicationId } from './ledgerError.js'
import type { Migration } from './migration.js'
import { type BackfillProgress, countRows, type MigrationProgress } from './migrationProgress.js'

/** Refuses a SQLite file of another program (an empty file is a new ledger). */
export function assertStockrouteFile(db: Database.Database, path: string): void {
  const applicationId = db.pragma('application_id', { simple: true })
  if (applicationId === ledgerApplicationId) return
  const tables = db
    .prepare<[], { n: number }>("SELECT count(*) AS n FROM sqlite_schema WHERE type = 'table'")
    .get()
  if (applicationId === 0 && tables?.n === 0) return
  throw new LedgerError({
    code: 'LEDGER_NOT_STOCKROUTE',
    shortMessage: `${path} is a SQLite file of another program (application_id ${String(applicationId)}): point the ledger path at a new or stockroute file.`,
    details: { path, applicationId },
  })
}

type AppliedRow = { version: number; name: string }

function appliedMigrations(db: Database.Database): AppliedRow[] {
  const exists = db
    .prepare<[], { n: number }>(
      "SELECT count(*) AS n FROM sqlite_schema WHERE type = 'table' AND name = 'schema_migrations'",
    )
    .get()
  if (!exists?.n) return []
  return db.prepare<[], AppliedRow>('SELECT version, name FROM schema_migrations ORDER BY version').all()
}

/** Checks the applied migrations against the known ones; returns the file's version. */
function checkApplied(applied: AppliedRow[], path: string, migrations: readonly Migration[]): number {
  const latest = migrations.at(-1)?.version ?? 0
  const version = applied.at(-1)?.version ?? 0
  if (version > latest)
    throw new LedgerError({
      code: 'LEDGER_TOO_NEW',
      shortMessage: `The ledger ${path} has schema version ${version}, newer than the ${latest} this stockroute knows: upgrade stockroute (never downgrade over a newer ledger).`,
      details: { path, version, latest },
    })
  applied.forEach((row, index) => {
    const known = migrations[index]
    if (!known || known.version !== row.version || known.name !== row.name)
      throw new LedgerError({
        code: 'LEDGER_SCHEMA_MISMATCH',
        shortMessage: `The ledger ${path} has migration ${row.version} "${row.name}", which this stockroute does not have at that place${known ? ` (expected ${known.version} "${known.name}")` : ''}: it was written by another build; use a matching stockroute.`,
        details: { path, version: row.version, name: row.name },
      })
  })
  return version
}

/** A read-only open needs a file already at this build's version: it cannot migrate. */
export function checkReadonlyVersion(
  db: Database.Database,
  path: string,
  migrations: readonly Migration[],
): number {
  const version = checkApplied(appliedMigrations(db), path, migrations)
  const latest = migrations.at(-1)?.version ?? 0
  if (version < latest)
    throw new LedgerError({
      code: 'LEDGER_NEEDS_MIGRATION',
      shortMessage: `The ledger ${path} has schema version ${version}, older than ${latest}: open it once read-write (start the daemon) to migrate it, then read it.`,
      details: { path, version, latest },
    })
  return version
}

/**
 * Applies the missing migrations, each in its own write transaction; returns the file's version.
 * A backfill's counts go to `onProgress` (an error it throws is ignored: it cannot fail the migration).
 */
export function migrate(
  db: Database.Database,
  path: string,
  migrations: readonly Migration[],
  now: () => number,
  onProgress?: ((progress: MigrationProgress) => void) | undefined,
): number {
  migrations.forEach((migration, index) => {
    if (migration.version !== index + 1)
      throw new Error(`migrations must be numbered 1, 2, 3… (${migration.version})`)
  })
  let version = checkApplied(appliedMigrations(db), path, migrations)
  for (const migration of migrations) {
    if (migration.version <= version) continue
    const apply = db.transaction(() => {
      // Another process may have migrated while this one waited for the write lock.
      const current = checkApplied(appliedMigrations(db), path, migrations)
      if (current >= migration.version) return current
      db.exec(`CREATE TABLE IF NOT EXISTS schema_migrations (
        version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at_ms INTEGER NOT NULL) STRICT`)
      db.pragma(`application_id = ${ledgerApplicationId}`)
      const progress: BackfillProgress | undefined = onProgress
        ? (step) => {
            try {
              onProgress({ version: migration.version, name: migration.name, ...step })
            } catch {}
          }
        : undefined
      if (migration.statements) {
        const done = countRows(progress, 'schema changes', 'statements', migration.statements.length)
        for (const statement of migration.statements) {
          db.exec(statement)
          done.add()
        }
        done.end()
      } else db.exec(migration.sql)
      migration.backfill?.(db, progress)
      db.prepare('INSERT INTO schema_migrations (version, name, applied_at_ms) VALUES (?, ?, ?)').run(
        migration.version,
        migration.name,
        now(),
      )
      return migration.version
    })
    try {
      version = apply.immediate()
    } catch (error) {
      if (error instanceof LedgerError) throw error
      throw new LedgerError({
        code: 'LEDGER_MIGRATION_FAILED',
        shortMessage: `Migration ${migration.version} "${migration.name}" of the ledger ${path} failed and was rolled back (the file stays at version ${version}): ${(error as Error).message}`,
        remedy:
          'fix what the message names (free disk space, a writable file) and start again; if it persists, keep a copy of the ledger and report it',
        details: { path, version: migration.version, name: migration.name },
        cause: error,
      })
    }
  }
  return version
}
