import type { Migration } from './migration.js'
import { eventsStrategiesNotifications } from './migration4.js'
import { executionMarketPrice } from './migration5.js'
import { reportIndices } from './migration6.js'
import { reportFigures } from './migration7.js'
import { oneCreatedIndex } from './migration8.js'
import { transactionOutcomes } from './migration9.js'
import { walletFences } from './migration10.js'
import { protectiveExits } from './migration11.js'
import { entryHalts } from './migration12.js'

// CHECK fragments. Amounts are decimal TEXT (uint256 does not fit in INTEGER): canonical digits,
// no sign, no leading zero; signed columns allow one leading '-'.
const uint = (column: string) =>
  `(${column} = '0' OR (${column} GLOB '[1-9]*' AND ${column} NOT GLOB '*[^0-9]*'))`
const int = (column: string) =>
  `(${column} = '0' OR (${column} GLOB '[1-9]*' AND ${column} NOT GLOB '*[^0-9]*') OR (${column} GLOB '-[1-9]*' AND substr(${column}, 2) NOT GLOB '*[^0-9]*'))`
const bytes32 = (column: string) =>
  `(length(${column}) = 66 AND ${column} GLOB '0x*' AND lower(${column}) = ${column})`

// Migration 2 onwards: a 0x address of 40 hex digits (stored checksummed by the repositories), and a
// non-negative decimal in canonical form (no sign, no leading zero, no trailing fraction zero).
const address = (column: string) =>
  `(length(${column}) = 42 AND ${column} GLOB '0x*' AND substr(${column}, 3) NOT GLOB '*[^0-9A-Fa-f]*')`
const decimal = (column: string) =>
  `(${column} GLOB '[0-9]*' AND ${column} NOT GLOB '*[^0-9.]*' AND ${column} NOT GLOB '*.*.*' AND ${column} NOT GLOB '0[0-9]*' AND ${column} NOT GLOB '*.' AND ${column} NOT GLOB '*.*0')`

const executionStates = `('intent', 'quoting', 'quoted', 'approving', 'submitted', 'confirmed', 'failed', 'expired', 'rejected')`

/** The ledger's migrations, in order. */
export const migrations: readonly Migration[] = [
  {
    version: 1,
    name: 'ledger',
    sql: `
CREATE TABLE executions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  intent_id TEXT NOT NULL UNIQUE CHECK (intent_id <> ''),
  chain_id INTEGER NOT NULL CHECK (chain_id > 0),
  ticker TEXT NOT NULL CHECK (ticker <> ''),
  exchange INTEGER NOT NULL,
  side TEXT NOT NULL CHECK (side IN ('buy', 'sell')),
  amount_in TEXT NOT NULL CHECK (amount_in <> ''),
  amount_type TEXT NOT NULL CHECK (amount_type IN ('stablecoin', 'stocktoken')),
  limit_price TEXT CHECK (limit_price IS NULL OR ${uint('limit_price')}),
  quote_id TEXT UNIQUE CHECK (quote_id IS NULL OR ${bytes32('quote_id')}),
  quote_json TEXT CHECK (quote_json IS NULL OR json_valid(quote_json)),
  notional TEXT CHECK (notional IS NULL OR ${uint('notional')}),
  asset_decimals INTEGER CHECK (asset_decimals IS NULL OR asset_decimals BETWEEN 0 AND 36),
  state TEXT NOT NULL CHECK (state IN ${executionStates}),
  reason TEXT NOT NULL,
  created_at_ms INTEGER NOT NULL,
  updated_at_ms INTEGER NOT NULL,
  CHECK ((notional IS NULL) = (asset_decimals IS NULL))
) STRICT;
CREATE INDEX executions_unfinished ON executions (state)
  WHERE state NOT IN ('confirmed', 'failed', 'expired', 'rejected');

-- Every quote id ever attached to an execution, also the ones dropped for a fresh quote: a quote id
-- belongs to one execution forever.
CREATE TABLE execution_quotes (
  quote_id TEXT PRIMARY KEY CHECK (${bytes32('quote_id')}),
  execution_id INTEGER NOT NULL REFERENCES executions (id),
  attached_at_ms INTEGER NOT NULL
) STRICT;

CREATE TABLE execution_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  execution_id INTEGER NOT NULL REFERENCES executions (id),
  from_state TEXT CHECK (from_state IS NULL OR from_state IN ${executionStates}),
  to_state TEXT NOT NULL CHECK (to_state IN ${executionStates}),
  reason TEXT NOT NULL,
  quote_id TEXT,
  at_ms INTEGER NOT NULL
) STRICT;
CREATE INDEX execution_events_by_execution ON execution_events (execution_id, id);

CREATE TABLE nonces (
  chain_id INTEGER NOT NULL CHECK (chain_id > 0),
  address TEXT NOT NULL,
  next_nonce INTEGER NOT NULL CHECK (next_nonce >= 0),
  updated_at_ms INTEGER NOT NULL,
  PRIMARY KEY (chain_id, address)
) STRICT;

CREATE TABLE transactions (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  execution_id INTEGER REFERENCES executions (id),
  chain_id INTEGER NOT NULL CHECK (chain_id > 0),
  from_address TEXT NOT NULL,
  nonce INTEGER NOT NULL CHECK (nonce >= 0),
  kind TEXT NOT NULL CHECK (kind IN ('approve', 'execute', 'cancel')),
  hash TEXT NOT NULL CHECK (${bytes32('hash')}),
  raw TEXT NOT NULL CHECK (raw GLOB '0x*'),
  status TEXT NOT NULL CHECK (status IN ('signed', 'broadcast', 'mined', 'failed', 'replaced')),
  replaces_id INTEGER REFERENCES transactions (id),
  block_number INTEGER,
  receipt_status TEXT CHECK (receipt_status IS NULL OR receipt_status IN ('success', 'reverted')),
  error TEXT,
  created_at_ms INTEGER NOT NULL,
  updated_at_ms INTEGER NOT NULL,
  UNIQUE (chain_id, hash),
  CHECK ((status = 'mined') = (block_number IS NOT NULL AND receipt_status IS NOT NULL))
) STRICT;
-- A nonce is held by at most one live transaction, whatever its kind. A replacement (cancel or
-- speed-up) takes the nonce over in the same transaction that marks its predecessor 'replaced'.
CREATE UNIQUE INDEX transactions_live_nonce ON transactions (chain_id, from_address, nonce)
  WHERE status IN ('signed', 'broadcast', 'mined');
CREATE INDEX transactions_by_execution ON transactions (execution_id, id);
CREATE INDEX transactions_pending ON transactions (chain_id, status) WHERE status IN ('signed', 'broadcast');

CREATE TABLE fills (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  seq INTEGER NOT NULL UNIQUE,
  chain_id INTEGER NOT NULL CHECK (chain_id > 0),
  tx_hash TEXT NOT NULL CHECK (${bytes32('tx_hash')}),
  log_index INTEGER NOT NULL CHECK (log_index >= 0),
  execution_id INTEGER REFERENCES executions (id),
  quote_id TEXT NOT NULL CHECK (${bytes32('quote_id')}),
  taker TEXT NOT NULL,
  stock_token TEXT NOT NULL,
  asset_token TEXT NOT NULL,
  token_kind TEXT NOT NULL CHECK (token_kind IN ('stock', 'share')),
  asset_decimals INTEGER NOT NULL CHECK (asset_decimals BETWEEN 0 AND 36),
  ticker TEXT NOT NULL,
  exchange INTEGER NOT NULL,
  is_buy INTEGER NOT NULL CHECK (is_buy IN (0, 1)),
  amount_in TEXT NOT NULL CHECK (${uint('amount_in')}),
  amount_out TEXT NOT NULL CHECK (${uint('amount_out')}),
  fee_amount TEXT NOT NULL CHECK (${uint('fee_amount')}),
  block_number INTEGER NOT NULL CHECK (block_number >= 0),
  block_time INTEGER NOT NULL CHECK (block_time >= 0),
  recorded_at_ms INTEGER NOT NULL,
  UNIQUE (chain_id, tx_hash, log_index)
) STRICT;
CREATE INDEX fills_by_recorded_at ON fills (recorded_at_ms);
CREATE INDEX fills_by_quote ON fills (quote_id);
CREATE INDEX fills_by_execution ON fills (execution_id) WHERE execution_id IS NOT NULL;

CREATE TABLE position_adjustments (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  seq INTEGER NOT NULL UNIQUE,
  chain_id INTEGER NOT NULL CHECK (chain_id > 0),
  token_address TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('split', 'delisting', 'transfer')),
  ratio_numerator TEXT CHECK (ratio_numerator IS NULL OR ${uint('ratio_numerator')}),
  ratio_denominator TEXT CHECK (ratio_denominator IS NULL OR ${uint('ratio_denominator')}),
  quantity TEXT CHECK (quantity IS NULL OR ${int('quantity')}),
  amount TEXT CHECK (amount IS NULL OR ${uint('amount')}),
  ticker TEXT,
  exchange INTEGER,
  token_kind TEXT CHECK (token_kind IS NULL OR token_kind IN ('stock', 'share')),
  asset_token TEXT,
  asset_decimals INTEGER CHECK (asset_decimals IS NULL OR asset_decimals BETWEEN 0 AND 36),
  reference TEXT UNIQUE,
  reason TEXT NOT NULL,
  recorded_at_ms INTEGER NOT NULL,
  CHECK (kind <> 'split' OR (ratio_numerator IS NOT NULL AND ratio_denominator IS NOT NULL
    AND ratio_numerator <> '0' AND ratio_denominator <> '0')),
  CHECK (kind <> 'transfer' OR (quantity IS NOT NULL AND quantity <> '0' AND amount IS NOT NULL))
) STRICT;
CREATE INDEX position_adjustments_by_token ON position_adjustments (chain_id, token_address);

-- Maintained in the same transaction as each fill or adjustment; recomputePositions() rebuilds it
-- from fills and adjustments in ledger order (seq).
CREATE TABLE positions (
  chain_id INTEGER NOT NULL CHECK (chain_id > 0),
  token_address TEXT NOT NULL,
  ticker TEXT NOT NULL,
  exchange INTEGER NOT NULL,
  token_kind TEXT NOT NULL CHECK (token_kind IN ('stock', 'share')),
  asset_token TEXT NOT NULL,
  asset_decimals INTEGER NOT NULL CHECK (asset_decimals BETWEEN 0 AND 36),
  balance TEXT NOT NULL CHECK (${int('balance')}),
  locked TEXT NOT NULL DEFAULT '0' CHECK (${uint('locked')}),
  cost_basis TEXT NOT NULL CHECK (${int('cost_basis')}),
  avg_price TEXT NOT NULL CHECK (${uint('avg_price')}),
  realized_pnl TEXT NOT NULL CHECK (${int('realized_pnl')}),
  last_seq INTEGER NOT NULL,
  updated_at_ms INTEGER NOT NULL,
  PRIMARY KEY (chain_id, token_address)
) STRICT;

CREATE TABLE kill_switch (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  halted INTEGER NOT NULL CHECK (halted IN (0, 1)),
  reason TEXT,
  changed_at_ms INTEGER
) STRICT;
INSERT INTO kill_switch (id, halted, reason, changed_at_ms) VALUES (1, 0, NULL, NULL);

CREATE TABLE kill_switch_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  action TEXT NOT NULL CHECK (action IN ('halt', 'resume')),
  reason TEXT NOT NULL,
  at_ms INTEGER NOT NULL
) STRICT;

CREATE TABLE checkpoints (
  chain_id INTEGER PRIMARY KEY CHECK (chain_id > 0),
  block_number INTEGER NOT NULL CHECK (block_number >= 0),
  updated_at_ms INTEGER NOT NULL
) STRICT;
`,
  },
  {
    version: 2,
    name: 'income-and-renames',
    sql: `
-- Income a holding earns without a trade (dividends), one row per corporate-action record, applied
-- once (reference). Not part of positions: cost basis and realized PnL stay the fold of fills and
-- adjustments; reports add income beside them. The original_* columns are the service's numbers in
-- the stock's market currency, natural units (decimal text); amount is what the chain paid.
CREATE TABLE income (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  chain_id INTEGER NOT NULL CHECK (chain_id > 0),
  token_address TEXT NOT NULL CHECK (${address('token_address')}),
  ticker TEXT NOT NULL CHECK (ticker <> ''),
  kind TEXT NOT NULL CHECK (kind IN ('dividend')),
  quantity TEXT CHECK (quantity IS NULL OR ${uint('quantity')}),
  amount TEXT NOT NULL CHECK (${uint('amount')}),
  asset_token TEXT NOT NULL CHECK (${address('asset_token')}),
  asset_decimals INTEGER NOT NULL CHECK (asset_decimals BETWEEN 0 AND 36),
  original_currency TEXT CHECK (original_currency IS NULL OR (length(original_currency) = 3
    AND original_currency NOT GLOB '*[^A-Z]*')),
  original_gross TEXT CHECK (original_gross IS NULL OR ${decimal('original_gross')}),
  original_tax TEXT CHECK (original_tax IS NULL OR ${decimal('original_tax')}),
  original_fee TEXT CHECK (original_fee IS NULL OR ${decimal('original_fee')}),
  original_net TEXT CHECK (original_net IS NULL OR ${decimal('original_net')}),
  tax_rate INTEGER CHECK (tax_rate IS NULL OR tax_rate BETWEEN 0 AND 100),
  tx_hash TEXT CHECK (tx_hash IS NULL OR ${bytes32('tx_hash')}),
  log_index INTEGER CHECK (log_index IS NULL OR log_index >= 0),
  reference TEXT NOT NULL UNIQUE CHECK (reference <> ''),
  reason TEXT NOT NULL CHECK (reason <> ''),
  recorded_at_ms INTEGER NOT NULL,
  CHECK (log_index IS NULL OR tx_hash IS NOT NULL)
) STRICT;
CREATE INDEX income_by_token ON income (chain_id, token_address);
CREATE INDEX income_by_asset ON income (chain_id, asset_token);

-- Ticker changes of a held token: a step of the position fold like a fill or an adjustment (seq is
-- shared by fills, position_adjustments and position_renames), so recomputePositions keeps them.
CREATE TABLE position_renames (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  seq INTEGER NOT NULL UNIQUE,
  chain_id INTEGER NOT NULL CHECK (chain_id > 0),
  token_address TEXT NOT NULL CHECK (${address('token_address')}),
  from_ticker TEXT NOT NULL CHECK (from_ticker <> ''),
  to_ticker TEXT NOT NULL CHECK (to_ticker <> ''),
  reference TEXT UNIQUE CHECK (reference IS NULL OR reference <> ''),
  reason TEXT NOT NULL CHECK (reason <> ''),
  recorded_at_ms INTEGER NOT NULL
) STRICT;
CREATE INDEX position_renames_by_token ON position_renames (chain_id, token_address);
`,
  },
  {
    version: 3,
    name: 'transaction-manager',
    sql: `
-- The transaction manager (src/transactions): gap fills are their own kind; 'dropped' is a
-- transaction whose nonce another program's transaction used; a mined transaction keeps the hash of
-- its block, so that a reorg is seen. SQLite cannot alter a CHECK: the table is rebuilt.
CREATE TABLE transactions_v3 (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  execution_id INTEGER REFERENCES executions (id),
  chain_id INTEGER NOT NULL CHECK (chain_id > 0),
  from_address TEXT NOT NULL,
  nonce INTEGER NOT NULL CHECK (nonce >= 0),
  kind TEXT NOT NULL CHECK (kind IN ('approve', 'execute', 'cancel', 'gap-fill')),
  hash TEXT NOT NULL CHECK (${bytes32('hash')}),
  raw TEXT NOT NULL CHECK (raw GLOB '0x*'),
  status TEXT NOT NULL CHECK (status IN ('signed', 'broadcast', 'mined', 'failed', 'replaced', 'dropped')),
  replaces_id INTEGER REFERENCES transactions_v3 (id),
  block_number INTEGER,
  block_hash TEXT CHECK (block_hash IS NULL OR ${bytes32('block_hash')}),
  receipt_status TEXT CHECK (receipt_status IS NULL OR receipt_status IN ('success', 'reverted')),
  error TEXT,
  created_at_ms INTEGER NOT NULL,
  updated_at_ms INTEGER NOT NULL,
  UNIQUE (chain_id, hash),
  CHECK ((status = 'mined') = (block_number IS NOT NULL AND receipt_status IS NOT NULL))
) STRICT;
INSERT INTO transactions_v3 (id, execution_id, chain_id, from_address, nonce, kind, hash, raw, status, replaces_id,
  block_number, block_hash, receipt_status, error, created_at_ms, updated_at_ms)
SELECT id, execution_id, chain_id, from_address, nonce, kind, hash, raw, status, replaces_id,
  block_number, NULL, receipt_status, error, created_at_ms, updated_at_ms FROM transactions;
DROP TABLE transactions;
ALTER TABLE transactions_v3 RENAME TO transactions;
CREATE UNIQUE INDEX transactions_live_nonce ON transactions (chain_id, from_address, nonce)
  WHERE status IN ('signed', 'broadcast', 'mined');
CREATE INDEX transactions_by_execution ON transactions (execution_id, id);
CREATE INDEX transactions_pending ON transactions (chain_id, from_address, nonce) WHERE status IN ('signed', 'broadcast');
CREATE INDEX transactions_mined_by_block ON transactions (chain_id, block_number) WHERE status = 'mined';
CREATE INDEX transactions_by_nonce ON transactions (chain_id, from_address, nonce);

-- Every move of an execution is a compare-and-set on (state, version).
ALTER TABLE executions ADD COLUMN version INTEGER NOT NULL DEFAULT 0;

-- A fill knows its block; a reorg that removes the block reverses it (reversed_at_ms), and if its
-- transaction lands again it is recorded again as a new row. At most one live fill per
-- (chain, tx hash, log index); reversed ones stay as history.
CREATE TABLE fills_v3 (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  seq INTEGER NOT NULL UNIQUE,
  chain_id INTEGER NOT NULL CHECK (chain_id > 0),
  tx_hash TEXT NOT NULL CHECK (${bytes32('tx_hash')}),
  log_index INTEGER NOT NULL CHECK (log_index >= 0),
  execution_id INTEGER REFERENCES executions (id),
  quote_id TEXT NOT NULL CHECK (${bytes32('quote_id')}),
  taker TEXT NOT NULL,
  stock_token TEXT NOT NULL,
  asset_token TEXT NOT NULL,
  token_kind TEXT NOT NULL CHECK (token_kind IN ('stock', 'share')),
  asset_decimals INTEGER NOT NULL CHECK (asset_decimals BETWEEN 0 AND 36),
  ticker TEXT NOT NULL,
  exchange INTEGER NOT NULL,
  is_buy INTEGER NOT NULL CHECK (is_buy IN (0, 1)),
  amount_in TEXT NOT NULL CHECK (${uint('amount_in')}),
  amount_out TEXT NOT NULL CHECK (${uint('amount_out')}),
  fee_amount TEXT NOT NULL CHECK (${uint('fee_amount')}),
  block_number INTEGER NOT NULL CHECK (block_number >= 0),
  block_hash TEXT CHECK (block_hash IS NULL OR ${bytes32('block_hash')}),
  block_time INTEGER NOT NULL CHECK (block_time >= 0),
  recorded_at_ms INTEGER NOT NULL,
  reversed_at_ms INTEGER,
  reversal_reason TEXT,
  CHECK ((reversed_at_ms IS NULL) = (reversal_reason IS NULL))
) STRICT;
INSERT INTO fills_v3 (id, seq, chain_id, tx_hash, log_index, execution_id, quote_id, taker, stock_token, asset_token,
  token_kind, asset_decimals, ticker, exchange, is_buy, amount_in, amount_out, fee_amount, block_number, block_hash,
  block_time, recorded_at_ms, reversed_at_ms, reversal_reason)
SELECT id, seq, chain_id, tx_hash, log_index, execution_id, quote_id, taker, stock_token, asset_token,
  token_kind, asset_decimals, ticker, exchange, is_buy, amount_in, amount_out, fee_amount, block_number, NULL,
  block_time, recorded_at_ms, NULL, NULL FROM fills;
DROP TABLE fills;
ALTER TABLE fills_v3 RENAME TO fills;
CREATE UNIQUE INDEX fills_live ON fills (chain_id, tx_hash, log_index) WHERE reversed_at_ms IS NULL;
CREATE INDEX fills_by_tx ON fills (chain_id, tx_hash);
CREATE INDEX fills_by_recorded_at ON fills (recorded_at_ms);
CREATE INDEX fills_by_quote ON fills (quote_id);
CREATE INDEX fills_by_execution ON fills (execution_id) WHERE execution_id IS NOT NULL;

-- An approval on chain whose execution ended without sending its execute: the allowance it left.
-- 'open' until the next execution of the same token and spender uses it, or a revoke is mined.
CREATE TABLE open_allowances (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  chain_id INTEGER NOT NULL CHECK (chain_id > 0),
  owner TEXT NOT NULL CHECK (${address('owner')}),
  token TEXT NOT NULL CHECK (${address('token')}),
  spender TEXT NOT NULL CHECK (${address('spender')}),
  amount TEXT NOT NULL CHECK (${uint('amount')}),
  approve_tx_hash TEXT NOT NULL CHECK (${bytes32('approve_tx_hash')}),
  execution_id INTEGER REFERENCES executions (id),
  state TEXT NOT NULL CHECK (state IN ('open', 'used', 'revoked')),
  reason TEXT NOT NULL CHECK (reason <> ''),
  closed_reason TEXT,
  recorded_at_ms INTEGER NOT NULL,
  updated_at_ms INTEGER NOT NULL,
  UNIQUE (chain_id, approve_tx_hash)
) STRICT;
CREATE INDEX open_allowances_open ON open_allowances (chain_id, token, spender) WHERE state = 'open';

-- The one process that writes this ledger (see src/store/ledgerOwner.ts): taken in a write
-- transaction, so two processes can never both own it.
CREATE TABLE ledger_owner (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  pid INTEGER NOT NULL,
  host TEXT NOT NULL,
  process_start TEXT,
  command TEXT NOT NULL,
  control_url TEXT,
  since_ms INTEGER NOT NULL,
  heartbeat_ms INTEGER NOT NULL
) STRICT;
`,
  },
  eventsStrategiesNotifications,
  executionMarketPrice,
  reportIndices,
  reportFigures,
  oneCreatedIndex,
  transactionOutcomes,
  walletFences,
  protectiveExits,
  entryHalts,
]

/** The schema version this build writes: the last migration's number. */
export const latestSchemaVersion: number = migrations.at(-1)?.version ?? 0
