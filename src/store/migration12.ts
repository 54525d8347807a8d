// Migration 12: risk that halts by itself (docs/configuration.md). A risk limit reached (the drawdown of
// equity from its peak, the day's realized loss) latches an entry halt: buys are refused, sells (exits)
// still run, until an operator resumes. Kept here so that a restart keeps both the halts and the
// equity peaks they are measured from:
// - `entry_halts`: one row per (scope, rule) in force; scope `chain_id` 0 is all chains together.
//   The first reason is kept (INSERT OR IGNORE); a resume deletes them all (the event stream keeps
//   the history: each insert is copied there by a trigger as an `entry_halt` event).
// - `equity_peaks`: per scope, the highest equity PnL observed (realized + unrealized at a mark, in
//   18-decimal notional) since the ledger began or the last resume, and the latest one.
// The event stream's CHECK on `kind` was an explicit list: SQLite cannot alter a CHECK, so `events`
// is rebuilt (with `notification_outbox`, whose foreign key names it) and its triggers made again.
// Its CHECK now only asks for a lower-case name: the kinds are listed in src/store/events.ts, and a
// new kind no longer needs a rebuild of the whole stream.
import type { Migration } from './migration.js'

const int = (column: string) =>
  `(${column} = '0' OR (${column} GLOB '[1-9]*' AND ${column} NOT GLOB '*[^0-9]*') OR (${column} GLOB '-[1-9]*' AND substr(${column}, 2) NOT GLOB '*[^0-9]*'))`

/** Migration 4's triggers that write into `events`, made again after the rebuild (same text). */
const eventTriggers: readonly string[] = [
  `CREATE TRIGGER events_on_transition AFTER INSERT ON execution_events BEGIN
  INSERT INTO events (kind, chain_id, execution_id, data, at_ms)
  SELECT 'execution', e.chain_id, e.id, json_object('executionId', e.id, 'intentId', e.intent_id,
    'chainId', e.chain_id, 'ticker', e.ticker, 'exchange', e.exchange, 'side', e.side, 'amountIn', e.amount_in,
    'amountType', e.amount_type, 'strategy', e.strategy, 'from', NEW.from_state, 'to', NEW.to_state,
    'reason', NEW.reason, 'quoteId', NEW.quote_id), NEW.at_ms
  FROM executions e WHERE e.id = NEW.execution_id;
END`,
  `CREATE TRIGGER events_on_fill AFTER INSERT ON fills BEGIN
  INSERT INTO events (kind, chain_id, execution_id, data, at_ms) VALUES ('fill', NEW.chain_id, NEW.execution_id,
    json_object('fillId', NEW.id, 'executionId', NEW.execution_id, 'chainId', NEW.chain_id, 'txHash', NEW.tx_hash,
      'logIndex', NEW.log_index, 'quoteId', NEW.quote_id, 'ticker', NEW.ticker, 'exchange', NEW.exchange,
      'side', CASE NEW.is_buy WHEN 1 THEN 'buy' ELSE 'sell' END, 'tokenKind', NEW.token_kind,
      'stockToken', NEW.stock_token, 'assetToken', NEW.asset_token, 'assetDecimals', NEW.asset_decimals,
      'amountIn', NEW.amount_in, 'amountOut', NEW.amount_out, 'feeAmount', NEW.fee_amount,
      'blockNumber', NEW.block_number), NEW.recorded_at_ms);
END`,
  `CREATE TRIGGER events_on_fill_reversed AFTER UPDATE OF reversed_at_ms ON fills
  WHEN OLD.reversed_at_ms IS NULL AND NEW.reversed_at_ms IS NOT NULL BEGIN
  INSERT INTO events (kind, chain_id, execution_id, data, at_ms) VALUES ('fill_reversed', NEW.chain_id,
    NEW.execution_id, json_object('fillId', NEW.id, 'executionId', NEW.execution_id, 'chainId', NEW.chain_id,
      'txHash', NEW.tx_hash, 'logIndex', NEW.log_index, 'ticker', NEW.ticker, 'reason', NEW.reversal_reason),
    NEW.reversed_at_ms);
END`,
  `CREATE TRIGGER events_on_kill_switch AFTER INSERT ON kill_switch_events BEGIN
  INSERT INTO events (kind, chain_id, execution_id, data, at_ms)
  VALUES (NEW.action, NULL, NULL, json_object('reason', NEW.reason), NEW.at_ms);
END`,
]

const statements: readonly string[] = [
  `CREATE TABLE entry_halts (
  chain_id INTEGER NOT NULL CHECK (chain_id >= 0),
  rule TEXT NOT NULL CHECK (rule IN ('maxDrawdownPct', 'maxDailyRealizedLoss')),
  reason TEXT NOT NULL CHECK (reason <> ''),
  figures TEXT NOT NULL CHECK (json_valid(figures)),
  at_ms INTEGER NOT NULL,
  PRIMARY KEY (chain_id, rule)
) STRICT`,
  `CREATE TABLE equity_peaks (
  chain_id INTEGER PRIMARY KEY CHECK (chain_id >= 0),
  peak_pnl TEXT NOT NULL CHECK ${int('peak_pnl')},
  peak_at_ms INTEGER NOT NULL,
  last_pnl TEXT NOT NULL CHECK ${int('last_pnl')},
  last_at_ms INTEGER NOT NULL,
  since_ms INTEGER NOT NULL
) STRICT`,
  // The outbox names events in its foreign key: its rows wait in a copy while events is rebuilt
  // (its AUTOINCREMENT counters too, so that no id is ever given twice).
  `CREATE TEMP TABLE outbox_v11 AS SELECT * FROM notification_outbox`,
  `CREATE TEMP TABLE sequences_v11 AS SELECT name, seq FROM sqlite_sequence
  WHERE name IN ('events', 'notification_outbox')`,
  'DROP TABLE notification_outbox',
  ...['events_on_transition', 'events_on_fill', 'events_on_fill_reversed', 'events_on_kill_switch'].map(
    (trigger) => `DROP TRIGGER ${trigger}`,
  ),
  `CREATE TABLE events_v12 (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL CHECK (kind <> '' AND kind NOT GLOB '*[^a-z_]*'),
  chain_id INTEGER,
  execution_id INTEGER,
  data TEXT NOT NULL CHECK (json_valid(data)),
  at_ms INTEGER NOT NULL
) STRICT`,
  'INSERT INTO events_v12 (id, kind, chain_id, execution_id, data, at_ms) SELECT id, kind, chain_id, execution_id, data, at_ms FROM events',
  'DROP TABLE events',
  'ALTER TABLE events_v12 RENAME TO events',
  ...eventTriggers,
  `CREATE TRIGGER events_on_entry_halt AFTER INSERT ON entry_halts BEGIN
  INSERT INTO events (kind, chain_id, execution_id, data, at_ms)
  VALUES ('entry_halt', NULLIF(NEW.chain_id, 0), NULL, json_object('chainId', NULLIF(NEW.chain_id, 0),
    'rule', NEW.rule, 'reason', NEW.reason, 'figures', json(NEW.figures)), NEW.at_ms);
END`,
  `CREATE TABLE notification_outbox (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  sink TEXT NOT NULL CHECK (sink <> ''),
  event_id INTEGER NOT NULL REFERENCES events (id),
  idempotency_key TEXT NOT NULL UNIQUE,
  state TEXT NOT NULL CHECK (state IN ('pending', 'delivered', 'abandoned')),
  attempts INTEGER NOT NULL CHECK (attempts >= 0),
  next_attempt_at_ms INTEGER NOT NULL,
  last_error TEXT,
  created_at_ms INTEGER NOT NULL,
  finished_at_ms INTEGER,
  UNIQUE (sink, event_id)
) STRICT`,
  `INSERT INTO notification_outbox (id, sink, event_id, idempotency_key, state, attempts, next_attempt_at_ms,
  last_error, created_at_ms, finished_at_ms)
SELECT id, sink, event_id, idempotency_key, state, attempts, next_attempt_at_ms, last_error, created_at_ms,
  finished_at_ms FROM outbox_v11`,
  `CREATE INDEX notification_outbox_pending ON notification_outbox (next_attempt_at_ms) WHERE state = 'pending'`,
  // The copies set each counter to their largest id; one that had gone further (rows deleted) is kept.
  `INSERT INTO sqlite_sequence (name, seq) SELECT name, 0 FROM sequences_v11
  WHERE name NOT IN (SELECT name FROM sqlite_sequence)`,
  `UPDATE sqlite_sequence SET seq = max(seq, (SELECT saved.seq FROM sequences_v11 saved WHERE saved.name = sqlite_sequence.name))
  WHERE name IN (SELECT name FROM sequences_v11)`,
  'DROP TABLE outbox_v11',
  'DROP TABLE sequences_v11',
]

export const entryHalts: Migration = {
  version: 12,
  name: 'entry halts and equity peaks',
  sql: statements.join(';\n'),
  statements,
}
