import { existsSync } from 'node:fs'
import Database from 'better-sqlite3'

/**
 * The wallets' fences of the ledger at `path`, read before this daemon opens it for writing (it may
 * not own it yet): `chainId:wallet` (lowercase) → token. None for a new ledger, or one written before
 * cluster mode (migration 10). A token a lease takes is always above its wallet's fence here.
 *
 * @example
 * readLedgerFences('data/ledger.sqlite').get('31337:0xabc…') // 7
 */
export function readLedgerFences(path: string): Map<string, number> {
  const fences = new Map<string, number>()
  if (!existsSync(path)) return fences
  const db = new Database(path, { readonly: true, fileMustExist: true })
  try {
    const table = db
      .prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'wallet_fences'")
      .get()
    if (!table) return fences
    const rows = db.prepare('SELECT chain_id, wallet, token FROM wallet_fences').all() as {
      chain_id: number
      wallet: string
      token: number
    }[]
    for (const row of rows) fences.set(`${row.chain_id}:${row.wallet.toLowerCase()}`, row.token)
    return fences
  } finally {
    db.close()
  }
}
