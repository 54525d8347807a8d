// Migration 9: the transaction manager hands what the chain decided about a transaction to the
// engine through the ledger, in the manner of tx-sitter's loops. Each decision (included, reorged
// out, abandoned) is a row of `transaction_outcomes`, written in the ledger transaction that moves
// the transaction's status; the engine's settlement loop turns it into fills and execution states and
// deletes it in one ledger transaction of its own. A kill between the two leaves the row for the next
// start. A transaction also carries its deadline (`deadline_ms`), which the manager needs to cancel
// an execute before it can land too late, without asking the engine.
import type { Migration } from './migration.js'

const bytes32 = (column: string) =>
  `(length(${column}) = 66 AND ${column} GLOB '0x*' AND lower(${column}) = ${column})`

export const transactionOutcomes: Migration = {
  version: 9,
  name: 'transaction outcomes handed to the engine, transaction deadlines',
  sql: `
CREATE TABLE transaction_outcomes (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  chain_id INTEGER NOT NULL CHECK (chain_id > 0),
  tx_hash TEXT NOT NULL CHECK (${bytes32('tx_hash')}),
  outcome TEXT NOT NULL CHECK (outcome IN ('included', 'reorged', 'abandoned')),
  receipt_status TEXT CHECK (receipt_status IN ('success', 'reverted')),
  block_number INTEGER CHECK (block_number IS NULL OR block_number >= 0),
  block_hash TEXT CHECK (block_hash IS NULL OR ${bytes32('block_hash')}),
  block_timestamp INTEGER CHECK (block_timestamp IS NULL OR block_timestamp >= 0),
  seen_at_ms INTEGER,
  logs_json TEXT CHECK (logs_json IS NULL OR json_valid(logs_json)),
  reason TEXT,
  recorded_at_ms INTEGER NOT NULL,
  CHECK ((outcome = 'included') = (receipt_status IS NOT NULL AND block_number IS NOT NULL
    AND block_hash IS NOT NULL AND block_timestamp IS NOT NULL AND logs_json IS NOT NULL)),
  CHECK ((outcome = 'included') = (reason IS NULL))
) STRICT;

ALTER TABLE transactions ADD COLUMN deadline_ms INTEGER CHECK (deadline_ms IS NULL OR deadline_ms > 0);

-- Executes still on their way take their quote's expiry (without the engine's grace, which the
-- file does not hold: the earlier deadline only cancels sooner).
UPDATE transactions SET deadline_ms = (
  SELECT CAST(json_extract(executions.quote_json, '$.expiresAt') AS INTEGER) * 1000
  FROM executions WHERE executions.id = transactions.execution_id
)
WHERE kind = 'execute' AND status IN ('signed', 'broadcast', 'replaced') AND execution_id IS NOT NULL;
`,
}
