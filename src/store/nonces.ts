import type { Address } from 'viem'
import { canonicalAddress, safeInteger } from './codec.js'
import type { RepositoryContext } from './context.js'

/** What {@link NoncesRepository.releaseNonce} did. */
export type ReleaseNonceResult =
  /** The nonce was the last one reserved and no transaction holds it: the next reservation returns it again. */
  | 'released'
  /** A later nonce was reserved since (or this one never was): releasing would leave a gap, so nothing changed. */
  | 'not-last-reserved'
  /** A stored transaction (signed, broadcast, mined or replaced) uses it: it may be on chain, so nothing changed. */
  | 'used-by-transaction'

/**
 * The engine's nonces, per (chain id, address). The ledger, not the node, is the source of truth
 * for what was handed out; the node's pending count only moves it forward (a transaction sent by
 * another tool). Reservations are atomic across processes (one write transaction each), so two
 * workers never get the same nonce.
 */
export type NoncesRepository = {
  /**
   * Returns `max(stored next nonce, chainPendingNonce)` and stores that plus one, atomically.
   * `chainPendingNonce` is the node's `eth_getTransactionCount(address, 'pending')`.
   *
   * @example
   * const nonce = ledger.nonces.reserveNonce(31337, account.address, await client.getTransactionCount({ address, blockTag: 'pending' }))
   */
  reserveNonce(chainId: number, address: Address, chainPendingNonce: number): number
  /**
   * Gives a reserved nonce back so that no gap is left when its transaction will never exist
   * (refused by the guard, signing failed). The rule: only the LAST reserved nonce of the address,
   * and only while no stored transaction of that chain, address and nonce has a status other than
   * `failed` — a transaction stored as `signed` may have been broadcast just before a crash, so it
   * blocks the release until it is resolved (`markFailed` once it is known not to be on chain, or
   * replaced by a cancel with the same nonce).
   *
   * @example
   * const nonce = ledger.nonces.reserveNonce(chainId, address, pending)
   * if (!guard.ok) ledger.nonces.releaseNonce(chainId, address, nonce) // 'released'
   */
  releaseNonce(chainId: number, address: Address, nonce: number): ReleaseNonceResult
  /**
   * The next nonce the ledger would hand out before looking at the chain, if any was ever reserved.
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

  const reserve = db.transaction((chainId: number, address: Address, chainPendingNonce: number): number => {
    const stored = selectNext.get(chainId, address)?.next_nonce ?? 0
    const nonce = Math.max(stored, chainPendingNonce)
    upsertNext.run(chainId, address, safeInteger(nonce + 1, 'next nonce'), now())
    return nonce
  })

  const commit = db.transaction((chainId: number, address: Address, nonce: number): void => {
    const stored = selectNext.get(chainId, address)?.next_nonce ?? 0
    if (nonce + 1 > stored) upsertNext.run(chainId, address, safeInteger(nonce + 1, 'next nonce'), now())
  })

  const release = db.transaction((chainId: number, address: Address, nonce: number): ReleaseNonceResult => {
    const next = selectNext.get(chainId, address)?.next_nonce
    if (next === undefined || next - 1 !== nonce) return 'not-last-reserved'
    if (selectHolder.get(chainId, address, nonce)) return 'used-by-transaction'
    upsertNext.run(chainId, address, nonce, now())
    return 'released'
  })

  return {
    reserveNonce(chainId, address, chainPendingNonce) {
      return reserve.immediate(
        safeInteger(chainId, 'chainId', 1),
        canonicalAddress(address, 'address'),
        safeInteger(chainPendingNonce, 'chainPendingNonce'),
      )
    },
    releaseNonce(chainId, address, nonce) {
      return release.immediate(
        safeInteger(chainId, 'chainId', 1),
        canonicalAddress(address, 'address'),
        safeInteger(nonce, 'nonce'),
      )
    },
    commitNonce(chainId, address, nonce) {
      commit.immediate(
        safeInteger(chainId, 'chainId', 1),
        canonicalAddress(address, 'address'),
        safeInteger(nonce, 'nonce'),
      )
    },
    rewindNextNonce(chainId, address, nonce) {
      return (
        release.immediate(
          safeInteger(chainId, 'chainId', 1),
          canonicalAddress(address, 'address'),
          safeInteger(nonce, 'nonce'),
        ) === 'released'
      )
    },
    peekNextNonce(chainId, address) {
      return selectNext.get(chainId, canonicalAddress(address, 'address'))?.next_nonce
    },
  }
}
