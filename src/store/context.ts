import type Database from 'better-sqlite3'

/** What every repository is built over: the open database and the ledger's clock. */
export type RepositoryContext = {
  db: Database.Database
  /** Milliseconds since the epoch; every stored timestamp comes from here. */
  now: () => number
}
