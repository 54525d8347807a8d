// Migration 6: indices for the reports (src/report/), each measured by `npm run bench:report` on a
// generated ledger of 1,000,000 fills: the last fill of a position (positions: 210 s → 12 ms), fills
// and executions by chain, ticker and time, and an execution's first arrival in each state (latency).
import type { Migration } from './migration.js'

export const reportIndices: Migration = {
  version: 6,
  name: 'report indices',
  sql: `
CREATE INDEX fills_by_token ON fills (chain_id, stock_token, seq) WHERE reversed_at_ms IS NULL;
CREATE INDEX fills_by_chain_time ON fills (chain_id, block_time) WHERE reversed_at_ms IS NULL;
CREATE INDEX fills_by_ticker_time ON fills (ticker, block_time) WHERE reversed_at_ms IS NULL;
CREATE INDEX fills_by_block_time ON fills (block_time) WHERE reversed_at_ms IS NULL;
CREATE INDEX executions_by_chain_created ON executions (chain_id, created_at_ms);
CREATE INDEX executions_by_ticker_created ON executions (ticker, created_at_ms);
CREATE INDEX execution_events_by_state ON execution_events (execution_id, to_state, at_ms);
`,
}
