import type { Address } from 'viem'
import { canonicalAddress, safeInteger } from './codec.js'
import type { RepositoryContext } from './context.js'

/**
 * How far each wallet's nonces were taken, per (chain id, address): the durable half of the
 * transaction manager's nonce allocator (src/transactions/nonceAllocator.ts, the one owner of which
 * nonce the next transaction takes), written in the same ledger transaction as the signed
 * transactions that take them.
 */
export type NoncesRepository = {
  /**
   * The next nonce the ledger would hand out before looking at the chain, if any was ever taken.
   *
   * @example
   * ledger.nonces.peekNextNonce(31337, address) // 7
   */
  peekNextNonce(chainId: number, address: Address): number | undefined
  /**
   * Records that `nonce` is taken (the stored next nonce becomes at least `nonce + 1`). The
   * transaction manager allocates nonces in memory and calls this in the ledger transaction that
   * stores the signed transaction, so a nonce is never taken without its transaction.
   *
   * @example
   * ledger.atomically(() => {
   *   ledger.nonces.commitNonce(31337, address, 7)
   *   ledger.transactions.recordSignedTransaction({ chainId: 31337, from: address, nonce: 7, kind, hash, raw })
   * })
   */
  commitNonce(chainId: number, address: Address, nonce: number): void
  /**
   * Moves the next nonce back to `nonce` when it is the last one taken and no transaction that may
   * reach the chain holds it (the node refused it; a dry run). Returns whether it moved.
   *
   * @example
   * if (ledger.nonces.rewindNextNonce(31337, address, 7)) next = 7
   */
  rewindNextNonce(chainId: number, address: Address, nonce: number): boolean
}

/** Builds the nonces repository over an open database (see `openLedger`). */
export function createNoncesRepository({ db, now }: RepositoryContext): NoncesRepository {
  const selectNext = db.prepare<[number, string], { next_nonce: number }>(
    'SELECT next_nonce FROM nonces WHERE chain_id = ? AND address = ?',
  )
  const upsertNext = db.prepare<[number, string, number, number]>(
    `INSERT INTO nonces (chain_id, address, next_nonce, updated_at_ms) VALUES (?, ?, ?, ?)
     ON CONFLICT (chain_id, address) DO UPDATE SET next_nonce = excluded.next_nonce, updated_at_ms = excluded.updated_at_ms`,
  )
  const selectHolder = db.prepare<[number, string, number], { status: string }>(
    `SELECT status FROM transactions WHERE chain_id = ? AND from_address = ? AND nonce = ? AND status <> 'failed' LIMIT 1`,
  )

  const commit = db.transaction((chainId: number, address: Address, nonce: number): void => {
    const stored = selectNext.get(chainId, address)?.next_nonce ?? 0
    if (nonce + 1 > stored) upsertNext.run(chainId, address, safeInteger(nonce + 1, 'next nonce'), now())
  })

  // Only the last nonce taken, and only while no transaction that may reach the chain holds it.
  const rewind = db.transaction((chainId: number, address: Address, nonce: number): boolean => {
    const next = selectNext.get(chainId, address)?.next_nonce
    if (next === undefined || next - 1 !== nonce) return false
    if (selectHolder.get(chainId, address, nonce)) return false
    upsertNext.run(chainId, address, nonce, now())
    return true
  })

  return {
    commitNonce(chainId, address, nonce) {
      commit.immediate(
        safeInteger(chainId, 'chainId', 1),
        canonicalAddress(address, 'address'),
        safeInteger(nonce, 'nonce'),
      )
    },
    rewindNextNonce(chainId, address, nonce) {
      return rewind.immediate(
        safeInteger(chainId, 'chainId', 1),
        canonicalAddress(address, 'address'),
        safeInteger(nonce, 'nonce'),
      )
    },
    peekNextNonce(chainId, address) {
      return selectNext.get(chainId, canonicalAddress(address, 'address'))?.next_nonce
    },
  }
}
