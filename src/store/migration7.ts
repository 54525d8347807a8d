// Migration 7: figures the reports read instead of recomputing them from every row, written in the
// transaction of the change they derive from, measured by `npm run bench:report` on 1,000,000 fills.
// - Each fill and adjustment keeps the PnL it realized in the average-cost fold, and `ledger_days`
//   sums the fold per UTC day, chain, token and strategy (src/store/ledgerDays.ts): pnl, summary and
//   strategies read days instead of replaying the ledger.
// - Each fill keeps its slippage against its quote and the market (src/store/fillSlippageOf.ts), so
//   the fills report averages integers; executions keep the FX rate their market price was
//   converted with.
// - Each execution keeps its reason's class (executions report) and the times it first reached
//   each stage (a trigger on execution_events), with the latency of each stage as virtual columns
//   indexed per chain: percentiles are read by rank from an index.
// The backfill computes all of it for ledgers written before, in the migration's transaction.
import type Database from 'better-sqlite3'
import { reasonClassOf } from './executionReasonClass.js'
import type { ExecutionState } from './executionStates.js'
import { type ExecutionPricingRow, type FillPricingRow, fillSlippageOf } from './fillSlippageOf.js'
import { rebuildLedgerFigures } from './ledgerFigures.js'
import type { Migration } from './migration.js'
import { type BackfillProgress, countRows } from './migrationProgress.js'

const signedInteger = (column: string) =>
  `(${column} = '0' OR (${column} GLOB '[1-9]*' AND ${column} NOT GLOB '*[^0-9]*') OR (${column} GLOB '-[1-9]*' AND substr(${column}, 2) NOT GLOB '*[^0-9]*'))`
const unsignedInteger = (column: string) =>
  `(${column} = '0' OR (${column} GLOB '[1-9]*' AND ${column} NOT GLOB '*[^0-9]*'))`

/**
 * The schema changes, one statement each: run one at a time, so that progress is reported between
 * them (on a large ledger each ALTER TABLE of a STRICT table takes seconds: SQLite checks the whole
 * table after adding a column).
 */
const statements: readonly string[] = [
  `ALTER TABLE fills ADD COLUMN realized_pnl TEXT NOT NULL DEFAULT '0' CHECK ${signedInteger('realized_pnl')}`,
  `ALTER TABLE fills ADD COLUMN slippage_vs_quote_cbps INTEGER`,
  `ALTER TABLE fills ADD COLUMN slippage_vs_market_cbps INTEGER`,
  `ALTER TABLE position_adjustments ADD COLUMN realized_pnl TEXT NOT NULL DEFAULT '0' CHECK ${signedInteger('realized_pnl')}`,
  `CREATE TABLE ledger_days (
  chain_id INTEGER NOT NULL,
  token_address TEXT NOT NULL,
  day TEXT NOT NULL CHECK (day GLOB '[0-9][0-9][0-9][0-9]-[0-9][0-9]-[0-9][0-9]'),
  corporate_action INTEGER NOT NULL CHECK (corporate_action IN (0, 1)),
  strategy TEXT NOT NULL,
  asset_token TEXT NOT NULL,
  asset_decimals INTEGER NOT NULL,
  -- Each amount (asset base units) is high · 10^12 + low: SQL sums both exactly (ledgerDays.ts).
  realized_high INTEGER NOT NULL,
  realized_low INTEGER NOT NULL CHECK (realized_low >= 0 AND realized_low < 1000000000000),
  fees_high INTEGER NOT NULL CHECK (fees_high >= 0),
  fees_low INTEGER NOT NULL CHECK (fees_low >= 0 AND fees_low < 1000000000000),
  bought_high INTEGER NOT NULL CHECK (bought_high >= 0),
  bought_low INTEGER NOT NULL CHECK (bought_low >= 0 AND bought_low < 1000000000000),
  sold_high INTEGER NOT NULL CHECK (sold_high >= 0),
  sold_low INTEGER NOT NULL CHECK (sold_low >= 0 AND sold_low < 1000000000000),
  buys INTEGER NOT NULL,
  sells INTEGER NOT NULL,
  corporate_actions INTEGER NOT NULL,
  quote_slippage_cbps INTEGER NOT NULL,
  quote_slippage_fills INTEGER NOT NULL,
  market_slippage_cbps INTEGER NOT NULL,
  market_slippage_fills INTEGER NOT NULL,
  worst_market_slippage_cbps INTEGER,
  first_at_ms INTEGER NOT NULL,
  last_at_ms INTEGER NOT NULL,
  PRIMARY KEY (chain_id, token_address, day, corporate_action, strategy)
) STRICT, WITHOUT ROWID`,
  `ALTER TABLE executions ADD COLUMN market_fx_rate TEXT CHECK (market_fx_rate IS NULL OR ${unsignedInteger('market_fx_rate')})`,
  `ALTER TABLE executions ADD COLUMN reason_class TEXT NOT NULL DEFAULT ''`,
  `ALTER TABLE executions ADD COLUMN first_quoted_at_ms INTEGER`,
  `ALTER TABLE executions ADD COLUMN last_quoted_at_ms INTEGER`,
  `ALTER TABLE executions ADD COLUMN submitted_at_ms INTEGER`,
  `ALTER TABLE executions ADD COLUMN confirmed_at_ms INTEGER`,
  `ALTER TABLE executions ADD COLUMN intent_to_quote_ms INTEGER
  GENERATED ALWAYS AS (first_quoted_at_ms - created_at_ms) VIRTUAL`,
  `ALTER TABLE executions ADD COLUMN quote_to_broadcast_ms INTEGER
  GENERATED ALWAYS AS (CASE WHEN first_quoted_at_ms IS NOT NULL THEN submitted_at_ms - last_quoted_at_ms END) VIRTUAL`,
  `ALTER TABLE executions ADD COLUMN broadcast_to_inclusion_ms INTEGER
  GENERATED ALWAYS AS (confirmed_at_ms - submitted_at_ms) VIRTUAL`,
  // The first quote, the last quote before the execute was signed (the one sent), the first
  // submission and the first confirmation: a reorg's second confirmation does not move them.
  `CREATE TRIGGER execution_stage_marks AFTER INSERT ON execution_events
WHEN NEW.to_state IN ('quoted', 'submitted', 'confirmed')
BEGIN
  UPDATE executions SET
    first_quoted_at_ms = CASE WHEN NEW.to_state = 'quoted'
      THEN min(coalesce(first_quoted_at_ms, NEW.at_ms), NEW.at_ms) ELSE first_quoted_at_ms END,
    last_quoted_at_ms = CASE WHEN NEW.to_state = 'quoted' AND submitted_at_ms IS NULL
      THEN max(coalesce(last_quoted_at_ms, NEW.at_ms), NEW.at_ms) ELSE last_quoted_at_ms END,
    submitted_at_ms = CASE WHEN NEW.to_state = 'submitted'
      THEN min(coalesce(submitted_at_ms, NEW.at_ms), NEW.at_ms) ELSE submitted_at_ms END,
    confirmed_at_ms = CASE WHEN NEW.to_state = 'confirmed'
      THEN min(coalesce(confirmed_at_ms, NEW.at_ms), NEW.at_ms) ELSE confirmed_at_ms END
  WHERE id = NEW.execution_id;
END`,
  `UPDATE executions SET
  first_quoted_at_ms = (SELECT min(at_ms) FROM execution_events WHERE execution_id = executions.id AND to_state = 'quoted'),
  submitted_at_ms = (SELECT min(at_ms) FROM execution_events WHERE execution_id = executions.id AND to_state = 'submitted'),
  confirmed_at_ms = (SELECT min(at_ms) FROM execution_events WHERE execution_id = executions.id AND to_state = 'confirmed')`,
  `UPDATE executions SET last_quoted_at_ms = (SELECT max(at_ms) FROM execution_events
  WHERE execution_id = executions.id AND to_state = 'quoted'
    AND (executions.submitted_at_ms IS NULL OR at_ms <= executions.submitted_at_ms))`,
  // Each chain's payment asset as the engine found it: reports name amounts by its symbol.
  `CREATE TABLE chain_assets (
  chain_id INTEGER NOT NULL,
  address TEXT NOT NULL,
  symbol TEXT NOT NULL,
  decimals INTEGER NOT NULL,
  recorded_at_ms INTEGER NOT NULL,
  PRIMARY KEY (chain_id, address)
) STRICT`,
  // The open positions of each chain and asset valued at the market, taken by the daemon once a
  // minute on its market-data tick: the dashboard's equity curve (the ledger keeps no past prices).
  `CREATE TABLE equity_marks (
  chain_id INTEGER NOT NULL,
  asset_token TEXT NOT NULL,
  asset_decimals INTEGER NOT NULL,
  at_ms INTEGER NOT NULL,
  cost_basis TEXT NOT NULL CHECK ${signedInteger('cost_basis')},
  market_value TEXT NOT NULL CHECK ${signedInteger('market_value')},
  positions INTEGER NOT NULL,
  unpriced INTEGER NOT NULL,
  PRIMARY KEY (chain_id, asset_token, at_ms)
) STRICT, WITHOUT ROWID`,
  `CREATE INDEX equity_marks_by_time ON equity_marks (at_ms)`,
  `CREATE INDEX executions_by_state_reason ON executions (state, reason_class)`,
  `CREATE INDEX executions_by_strategy_outcome ON executions (strategy, chain_id, state, created_at_ms)`,
  `CREATE INDEX executions_by_created ON executions (created_at_ms)`,
  `CREATE INDEX executions_by_updated ON executions (updated_at_ms)`,
  `CREATE INDEX executions_intent_to_quote ON executions (chain_id, intent_to_quote_ms)
  WHERE intent_to_quote_ms IS NOT NULL`,
  `CREATE INDEX executions_quote_to_broadcast ON executions (chain_id, quote_to_broadcast_ms)
  WHERE quote_to_broadcast_ms IS NOT NULL`,
  `CREATE INDEX executions_broadcast_to_inclusion ON executions (chain_id, broadcast_to_inclusion_ms)
  WHERE broadcast_to_inclusion_ms IS NOT NULL`,
]

export const reportFigures: Migration = {
  version: 7,
  name: 'report figures',
  sql: statements.map((statement) => `${statement};\n`).join(''),
  statements,
  backfill(db, progress) {
    backfillReasonClasses(db, progress)
    backfillFillSlippage(db, progress)
    rebuildLedgerFigures(db, progress)
  },
}

const countOf = (db: Database.Database, table: 'executions' | 'fills') =>
  db.prepare<[], { n: number }>(`SELECT count(*) AS n FROM ${table}`).get()?.n ?? 0

/** Classes the reason of every execution (collected first: one connection cannot write while it reads). */
function backfillReasonClasses(db: Database.Database, progress: BackfillProgress | undefined) {
  const rows = countRows(progress, 'backfilling reason classes', 'executions', countOf(db, 'executions'))
  const updates: [string, number][] = []
  for (const row of db
    .prepare<[], { id: number; state: ExecutionState; reason: string }>(
      'SELECT id, state, reason FROM executions',
    )
    .iterate()) {
    updates.push([reasonClassOf(row.state, row.reason), row.id])
    rows.add()
  }
  const set = db.prepare<[string, number]>('UPDATE executions SET reason_class = ? WHERE id = ?')
  for (const update of updates) set.run(...update)
  rows.end()
}

/** Computes the slippage of every fill against its execution's quote and market price. */
function backfillFillSlippage(db: Database.Database, progress: BackfillProgress | undefined) {
  const rows = countRows(progress, 'backfilling slippage', 'fills', countOf(db, 'fills'))
  const updates: [number | null, number | null, number][] = []
  for (const row of db
    .prepare<[], FillPricingRow & ExecutionPricingRow & { id: number; execution_id: number | null }>(
      `SELECT f.id, f.execution_id, f.quote_id, f.exchange, f.token_kind, f.asset_decimals, f.is_buy, f.amount_in,
         f.amount_out, e.quote_json, e.market_price, NULL AS market_fx_rate
       FROM fills f LEFT JOIN executions e ON e.id = f.execution_id`,
    )
    .iterate()) {
    const slippage = fillSlippageOf(row, row.execution_id === null ? undefined : row)
    updates.push([slippage.quote, slippage.market, row.id])
    rows.add()
  }
  const set = db.prepare<[number | null, number | null, number]>(
    'UPDATE fills SET slippage_vs_quote_cbps = ?, slippage_vs_market_cbps = ? WHERE id = ?',
  )
  for (const update of updates) set.run(...update)
  rows.end()
}
