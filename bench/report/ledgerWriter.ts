// The bulk writer of the generated ledger: the real schema, created by openLedger (all migrations)
// and closed, then filled through a raw better-sqlite3 connection with prepared statements in large
// transactions (journal in memory, synchronous off, exclusive lock: for this connection only; WAL is
// restored at the end). The migration-4 triggers that copy every execution event and fill into
// `events` are dropped for the load unless asked for, and recreated from their exact stored SQL.
import { rmSync } from 'node:fs'
import Database from 'better-sqlite3'
import { reportFigures } from '../../src/store/migration7.js'
import { openLedger } from '../../src/store/openLedger.js'

const streamTriggersQuery =
  "SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' AND name IN ('events_on_transition', 'events_on_fill') ORDER BY name"

export type LedgerStatements = ReturnType<typeof prepareStatements>

function prepareStatements(db: Database.Database) {
  return {
    insertExecution: db.prepare(
      `INSERT INTO executions (id, intent_id, chain_id, ticker, exchange, side, amount_in, amount_type, limit_price,
       quote_id, quote_json, notional, asset_decimals, state, reason, created_at_ms, updated_at_ms, version, strategy,
       market_price, market_price_at_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    /** One statement per execution's events (2 to 5 rows, at index rows - 2): a fifth of the calls. */
    insertEvents: [2, 3, 4, 5].map((rows) =>
      db.prepare(
        `INSERT INTO execution_events (execution_id, from_state, to_state, reason, quote_id, at_ms) VALUES ${Array.from({ length: rows }, () => '(?, ?, ?, ?, ?, ?)').join(', ')}`,
      ),
    ),
    insertQuote: db.prepare(
      'INSERT INTO execution_quotes (quote_id, execution_id, attached_at_ms) VALUES (?, ?, ?)',
    ),
    insertTransaction: db.prepare(
      `INSERT INTO transactions (execution_id, chain_id, from_address, nonce, kind, hash, raw, status, replaces_id,
       block_number, block_hash, receipt_status, error, created_at_ms, updated_at_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, 'mined', NULL, ?, ?, ?, NULL, ?, ?)`,
    ),
    insertFill: db.prepare(
      `INSERT INTO fills (seq, chain_id, tx_hash, log_index, execution_id, quote_id, taker, stock_token, asset_token,
       token_kind, asset_decimals, ticker, exchange, is_buy, amount_in, amount_out, fee_amount, block_number,
       block_hash, block_time, recorded_at_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    insertAdjustment: db.prepare(
      `INSERT INTO position_adjustments (seq, chain_id, token_address, kind, ratio_numerator, ratio_denominator,
       quantity, amount, ticker, exchange, token_kind, asset_token, asset_decimals, reference, reason, recorded_at_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    insertRename: db.prepare(
      `INSERT INTO position_renames (seq, chain_id, token_address, from_ticker, to_ticker, reference, reason, recorded_at_ms)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    insertIncome: db.prepare(
      `INSERT INTO income (chain_id, token_address, ticker, kind, quantity, amount, asset_token, asset_decimals,
       original_currency, original_gross, original_tax, original_fee, original_net, tax_rate, tx_hash, log_index,
       reference, reason, recorded_at_ms)
     VALUES (?, ?, ?, 'dividend', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
  }
}

export type BulkWriter = {
  db: Database.Database
  statements: LedgerStatements
  /** Restores the events triggers (when dropped) and the WAL journal, and closes the connection. */
  finish: (log: (message: string) => void) => void
}

/**
 * Creates the ledger at `path` (replacing it) with the store's schema and opens it for the bulk load.
 * `eventsStream`: keep the triggers that write an `events` row per execution event and per fill.
 */
export function openBulkWriter(path: string, eventsStream: boolean): BulkWriter {
  for (const suffix of ['', '-wal', '-shm']) rmSync(`${path}${suffix}`, { force: true })
  // The real schema, created by the store itself.
  openLedger({ path, owner: false }).close()

  const db = new Database(path)
  // Out of WAL for the bulk load (one write of each page, no checkpoints); better-sqlite3's defensive
  // mode refuses journal_mode=OFF, and a rollback journal in memory costs nothing here. A crash
  // leaves a partial file, which is never reused (it is renamed only when complete).
  db.pragma('journal_mode = DELETE')
  db.pragma('journal_mode = MEMORY')
  db.pragma('synchronous = OFF')
  db.pragma('locking_mode = EXCLUSIVE')
  db.pragma('temp_store = MEMORY')
  db.pragma('cache_size = -2097152') // 2 GiB: the random-key indices (quote ids, hashes) must stay in memory
  db.pragma('foreign_keys = OFF') // parents are written before their children; checked by the schema in production
  const streamTriggers = db.prepare<[], { name: string; sql: string }>(streamTriggersQuery).all()
  if (!eventsStream) for (const trigger of streamTriggers) db.exec(`DROP TRIGGER ${trigger.name}`)

  return {
    db,
    statements: prepareStatements(db),
    finish: (log) => {
      if (!eventsStream) {
        for (const trigger of streamTriggers) db.exec(trigger.sql)
        const now = db.prepare<[], { name: string; sql: string }>(streamTriggersQuery).all()
        if (JSON.stringify(now) !== JSON.stringify(streamTriggers))
          throw new Error('the events triggers were not restored exactly')
      }
      // What the store writes beside each fill and execution (migration 7): computed once, as the
      // migration computes it for a ledger written before it.
      const started = performance.now()
      db.transaction(() => reportFigures.backfill?.(db))()
      log(`report figures computed in ${((performance.now() - started) / 1000).toFixed(1)} s`)
      log('writing done; restoring the WAL journal')
      db.pragma('locking_mode = NORMAL')
      db.pragma('journal_mode = WAL')
      db.close()
    },
  }
}
