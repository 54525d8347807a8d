// Migration 4: the events stream, the strategy of an execution, strategy switches and the
// notification outbox (the control API and notifications, issue "the running daemon is the one door").
import type { Migration } from './migration.js'

export const eventsStrategiesNotifications: Migration = {
  version: 4,
  name: 'events, strategies and notifications',
  sql: `
-- One numbered stream of what happened, for the control API's event stream (GET /v1/events, whose
-- ids are these) and for notifications. Execution transitions, fills, their reversals and the kill
-- switch are copied here by triggers, inside the transaction that writes them: an event can be
-- neither forgotten by a code path nor recorded for a write that rolled back. Discrepancies,
-- recovery steps and daily summaries are appended by the code that finds them (src/store/events.ts).
CREATE TABLE events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  kind TEXT NOT NULL CHECK (kind IN ('execution', 'fill', 'fill_reversed', 'halt', 'resume', 'discrepancy',
    'recovery', 'daily_summary')),
  chain_id INTEGER,
  execution_id INTEGER,
  data TEXT NOT NULL CHECK (json_valid(data)),
  at_ms INTEGER NOT NULL
) STRICT;

-- The strategy whose intent made an execution (NULL: submitted through the API, CLI or library).
ALTER TABLE executions ADD COLUMN strategy TEXT;
CREATE INDEX executions_by_strategy ON executions (strategy, id) WHERE strategy IS NOT NULL;
CREATE INDEX executions_by_created_at ON executions (created_at_ms);

CREATE TRIGGER events_on_transition AFTER INSERT ON execution_events BEGIN
  INSERT INTO events (kind, chain_id, execution_id, data, at_ms)
  SELECT 'execution', e.chain_id, e.id, json_object('executionId', e.id, 'intentId', e.intent_id,
    'chainId', e.chain_id, 'ticker', e.ticker, 'exchange', e.exchange, 'side', e.side, 'amountIn', e.amount_in,
    'amountType', e.amount_type, 'strategy', e.strategy, 'from', NEW.from_state, 'to', NEW.to_state,
    'reason', NEW.reason, 'quoteId', NEW.quote_id), NEW.at_ms
  FROM executions e WHERE e.id = NEW.execution_id;
END;

CREATE TRIGGER events_on_fill AFTER INSERT ON fills BEGIN
  INSERT INTO events (kind, chain_id, execution_id, data, at_ms) VALUES ('fill', NEW.chain_id, NEW.execution_id,
    json_object('fillId', NEW.id, 'executionId', NEW.execution_id, 'chainId', NEW.chain_id, 'txHash', NEW.tx_hash,
      'logIndex', NEW.log_index, 'quoteId', NEW.quote_id, 'ticker', NEW.ticker, 'exchange', NEW.exchange,
      'side', CASE NEW.is_buy WHEN 1 THEN 'buy' ELSE 'sell' END, 'tokenKind', NEW.token_kind,
      'stockToken', NEW.stock_token, 'assetToken', NEW.asset_token, 'assetDecimals', NEW.asset_decimals,
      'amountIn', NEW.amount_in, 'amountOut', NEW.amount_out, 'feeAmount', NEW.fee_amount,
      'blockNumber', NEW.block_number), NEW.recorded_at_ms);
END;

CREATE TRIGGER events_on_fill_reversed AFTER UPDATE OF reversed_at_ms ON fills
  WHEN OLD.reversed_at_ms IS NULL AND NEW.reversed_at_ms IS NOT NULL BEGIN
  INSERT INTO events (kind, chain_id, execution_id, data, at_ms) VALUES ('fill_reversed', NEW.chain_id,
    NEW.execution_id, json_object('fillId', NEW.id, 'executionId', NEW.execution_id, 'chainId', NEW.chain_id,
      'txHash', NEW.tx_hash, 'logIndex', NEW.log_index, 'ticker', NEW.ticker, 'reason', NEW.reversal_reason),
    NEW.reversed_at_ms);
END;

CREATE TRIGGER events_on_kill_switch AFTER INSERT ON kill_switch_events BEGIN
  INSERT INTO events (kind, chain_id, execution_id, data, at_ms)
  VALUES (NEW.action, NULL, NULL, json_object('reason', NEW.reason), NEW.at_ms);
END;

-- Strategies an operator turned off or on (through the control API); absent: as the config says.
CREATE TABLE strategy_switches (
  strategy TEXT PRIMARY KEY CHECK (strategy <> ''),
  enabled INTEGER NOT NULL CHECK (enabled IN (0, 1)),
  reason TEXT NOT NULL,
  changed_at_ms INTEGER NOT NULL
) STRICT;

-- Notifications to deliver, one row per sink and event; the idempotency key is fixed when the row
-- is written, so a retry (even after a restart) carries the same key.
CREATE TABLE notification_outbox (
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
) STRICT;
CREATE INDEX notification_outbox_pending ON notification_outbox (next_attempt_at_ms) WHERE state = 'pending';

-- How far each sink has read the events stream: events after it are not in the outbox yet.
CREATE TABLE notification_cursors (
  sink TEXT PRIMARY KEY CHECK (sink <> ''),
  event_id INTEGER NOT NULL CHECK (event_id >= 0)
) STRICT;
`,
}
