import type Database from 'better-sqlite3'
import type { BackfillProgress } from './migrationProgress.js'

/**
 * One schema change of the ledger. Migrations are numbered from 1 without gaps, each applied in its
 * own transaction together with its row in `schema_migrations`. A migration is never edited once
 * released: change the schema with a new one.
 */
export type Migration = {
  readonly version: number
  readonly name: string
  readonly sql: string
  /**
   * The same SQL as `sql`, one statement each (no `;`): when present, run one at a time and counted
   * through the progress callback as `schema changes`, for a migration whose statements each scan
   * a large table.
   */
  readonly statements?: readonly string[] | undefined
  /**
   * Fills what SQL alone cannot compute (a replay of the ledger's folds), after `sql` and inside
   * the same transaction: a crash leaves the file at the version before. Counts its rows through
   * `progress` when given one (see migrationProgress.ts).
   */
  readonly backfill?: ((db: Database.Database, progress?: BackfillProgress) => void) | undefined
}
