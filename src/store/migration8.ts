// Migration 8: one index on `executions (created_at_ms)`, not two. Migration 4 made
// `executions_by_created_at` for the events' time filters and migration 7 made the same index again
// as `executions_by_created`; every new execution paid for both. The planner picks either by name
// alone, so the reports' plans do not change.
import type { Migration } from './migration.js'

export const oneCreatedIndex: Migration = {
  version: 8,
  name: 'one index on executions by creation time',
  // IF EXISTS: a ledger whose copy was taken back to an earlier version may lack it already.
  sql: 'DROP INDEX IF EXISTS executions_by_created_at;',
}
