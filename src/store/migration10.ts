// Migration 10: cluster mode's fencing (docs/scale-out.md). A daemon drives a (chain, wallet) only
// while it holds that wallet's lease in Redis; each lease carries a fencing token that only grows.
// `wallet_fences` holds the newest token that took a wallet over on this ledger, and every
// transaction the daemon signs carries the token it was signed under (`fence_token`): the ledger
// refuses to store one signed under an older token than the wallet's fence (a daemon that froze and
// woke after another took its wallet over). Transactions of a daemon outside cluster mode carry none.
import type { Migration } from './migration.js'

export const walletFences: Migration = {
  version: 10,
  name: 'wallet fencing tokens for cluster mode',
  sql: `
CREATE TABLE wallet_fences (
  chain_id INTEGER NOT NULL CHECK (chain_id > 0),
  wallet TEXT NOT NULL CHECK (length(wallet) = 42 AND wallet GLOB '0x*'),
  token INTEGER NOT NULL CHECK (token > 0),
  node_id TEXT NOT NULL,
  since_ms INTEGER NOT NULL,
  PRIMARY KEY (chain_id, wallet)
) STRICT;

ALTER TABLE transactions ADD COLUMN fence_token INTEGER CHECK (fence_token IS NULL OR fence_token > 0);
`,
}
