// Migration 11: the memory of `protect` strategies (stop-loss, take-profit, trailing stop; see
// src/strategy/protect.ts and docs/strategies.md). `protective_state` is what a strategy remembers of
// one position it watches: the position's epoch (the ledger sequence number of the step that opened
// it) and the highest fresh market price seen since. `protective_exits` holds each exit that fired,
// one per (strategy, position, epoch, trigger), with the quantity it sells: the daemon asks for that
// sale again after a restart until the position closes, and the engine executes its intent id once.
// Exits of earlier epochs stay as history.
import type { Migration } from './migration.js'

const uint = (column: string) =>
  `(${column} = '0' OR (${column} GLOB '[1-9]*' AND ${column} NOT GLOB '*[^0-9]*'))`

export const protectiveExits: Migration = {
  version: 11,
  name: 'protective exits: state of stop-loss, take-profit and trailing-stop strategies',
  sql: `
CREATE TABLE protective_state (
  strategy_id TEXT NOT NULL CHECK (strategy_id <> ''),
  chain_id INTEGER NOT NULL CHECK (chain_id > 0),
  ticker TEXT NOT NULL CHECK (ticker <> ''),
  armed_epoch INTEGER NOT NULL CHECK (armed_epoch >= 0),
  high_water_price TEXT CHECK (high_water_price IS NULL OR (${uint('high_water_price')} AND high_water_price <> '0')),
  high_water_at_ms INTEGER,
  updated_at_ms INTEGER NOT NULL,
  PRIMARY KEY (strategy_id, chain_id, ticker),
  CHECK ((high_water_price IS NULL) = (high_water_at_ms IS NULL))
) STRICT;

CREATE TABLE protective_exits (
  strategy_id TEXT NOT NULL CHECK (strategy_id <> ''),
  chain_id INTEGER NOT NULL CHECK (chain_id > 0),
  ticker TEXT NOT NULL CHECK (ticker <> ''),
  epoch INTEGER NOT NULL CHECK (epoch >= 0),
  trigger TEXT NOT NULL CHECK (trigger IN ('stop-loss', 'take-profit', 'trailing-stop')),
  intent_id TEXT NOT NULL UNIQUE CHECK (intent_id <> ''),
  trigger_price TEXT NOT NULL CHECK (${uint('trigger_price')} AND trigger_price <> '0'),
  quantity TEXT NOT NULL CHECK (${uint('quantity')} AND quantity <> '0'),
  balance TEXT NOT NULL CHECK (${uint('balance')} AND balance <> '0'),
  triggered_at_ms INTEGER NOT NULL,
  PRIMARY KEY (strategy_id, chain_id, ticker, epoch, trigger)
) STRICT;
`,
}
