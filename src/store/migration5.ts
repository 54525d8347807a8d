// Migration 5: the market price the deviation guard compared an execution's quote with, kept with
// the quote, so that reports measure each fill's slippage against the market when it was traded.
import type { Migration } from './migration.js'

const uint = (column: string) =>
  `(${column} = '0' OR (${column} GLOB '[1-9]*' AND ${column} NOT GLOB '*[^0-9]*'))`

export const executionMarketPrice: Migration = {
  version: 5,
  name: 'execution market price',
  sql: `
-- In the market's currency (USD, HKD, KRW), scaled by 1e8 like every Price; NULL before migration 5.
ALTER TABLE executions ADD COLUMN market_price TEXT CHECK (market_price IS NULL OR ${uint('market_price')});
ALTER TABLE executions ADD COLUMN market_price_at_ms INTEGER;
`,
}
