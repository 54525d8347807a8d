// Indices the report queries need on a large ledger, measured by `npm run bench:report --
// --with-indexes` and by bench/report/queryVariants.ts (created in the cached bench ledger for the
// run, dropped after). The schema change itself belongs in a migration (src/store): these are the
// statements to put there.
export const proposedIndexes: readonly { name: string; create: string; why: string }[] = [
  {
    name: 'fills_by_token',
    create:
      'CREATE INDEX IF NOT EXISTS fills_by_token ON fills (chain_id, stock_token, seq) WHERE reversed_at_ms IS NULL',
    why: "valuePosition's last live fill of a token (positions, pnl, summary: one query per position), and a ticker-scoped fold",
  },
  {
    name: 'execution_events_by_state',
    create:
      'CREATE INDEX IF NOT EXISTS execution_events_by_state ON execution_events (execution_id, to_state, at_ms)',
    why: "latency: each min(at_ms) of a state becomes one seek in a covering index instead of reading the execution's events",
  },
  {
    name: 'executions_by_chain_created',
    create: 'CREATE INDEX IF NOT EXISTS executions_by_chain_created ON executions (chain_id, created_at_ms)',
    why: 'executions/latency/strategies/summary filtered by chain and time (needs a WHERE without "@x IS NULL OR")',
  },
  {
    name: 'executions_by_ticker_created',
    create: 'CREATE INDEX IF NOT EXISTS executions_by_ticker_created ON executions (ticker, created_at_ms)',
    why: 'the same filtered by ticker',
  },
  {
    name: 'fills_by_block_time',
    create:
      'CREATE INDEX IF NOT EXISTS fills_by_block_time ON fills (block_time) WHERE reversed_at_ms IS NULL',
    why: 'fills report unfiltered: rows come in ORDER BY block_time, id (the rowid) without sorting a million wide rows',
  },
  {
    name: 'fills_by_chain_time',
    create:
      'CREATE INDEX IF NOT EXISTS fills_by_chain_time ON fills (chain_id, block_time) WHERE reversed_at_ms IS NULL',
    why: 'fills report by chain and time (needs block_time compared in seconds, not block_time * 1000)',
  },
  {
    name: 'fills_by_ticker_time',
    create:
      'CREATE INDEX IF NOT EXISTS fills_by_ticker_time ON fills (ticker, block_time) WHERE reversed_at_ms IS NULL',
    why: 'fills report by ticker',
  },
]
