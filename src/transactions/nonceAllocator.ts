import type { Address } from 'viem'
import type { Ledger } from '../store/openLedger.js'

/**
 * The one owner of a wallet's nonces on a chain: which nonce the next transaction takes. The next
 * nonce is kept in memory (the critical section reads it without a query); the ledger keeps how far
 * nonces were taken, written in the same ledger transaction as the signed transactions that take
 * them, so a nonce is never taken without its transaction, and a restart seeds from the ledger and
 * the chain. Used only inside the wallet's critical section (the transaction manager's lock) and by
 * its recovery.
 */
export type NonceAllocator = {
  /** The nonce the next transaction takes; undefined until recovery has seeded it. */
  next(): number | undefined
  /**
   * Recovery: the next nonce is the highest of the chain's pending count, the ledger's next nonce
   * and one past the highest nonce a transaction of the ledger holds. Returns it.
   */
  seed(chainPendingNonce: number): number
  /**
   * Takes `count` nonces from `first` (the next one) for the transactions `store` writes: one ledger
   * transaction records both; the next nonce moves past them once it committed. Returns what
   * `store` returned.
   */
  take<T>(first: number, count: number, store: () => T): T
  /**
   * {@link take} in two halves, for a caller that commits the transactions with its own writes: the
   * ledger's record that `count` nonces from `first` are taken, written in the caller's ledger
   * transaction...
   */
  record(first: number, count: number): void
  /** ...and, once that transaction committed, the next nonce moved past them. */
  advance(first: number, count: number): void
  /**
   * Gives `nonce` back when it is the last one taken and no transaction that may reach the chain
   * holds it (the node refused it; a dry run): the next transaction takes it again, so no gap is
   * left. Returns whether it was given back.
   */
  giveBack(nonce: number): boolean
}

/**
 * The nonce allocator of `address` on `chainId` over `ledger` (see {@link NonceAllocator}).
 *
 * @example
 * const nonces = createNonceAllocator(ledger, 31337, account.address)
 * nonces.seed(await getTransactionCount(publicClient, { address, blockTag: 'pending' }))
 * const records = nonces.take(nonces.next() ?? 0, 2, () => storeSigned(records))
 */
export function createNonceAllocator(ledger: Ledger, chainId: number, address: Address): NonceAllocator {
  let next: number | undefined
  const allocator: NonceAllocator = {
    next: () => next,
    seed(chainPendingNonce) {
      const stored = ledger.nonces.peekNextNonce(chainId, address) ?? 0
      const highest = ledger.transactions.highestLiveNonce(chainId, address)
      next = Math.max(chainPendingNonce, stored, highest === undefined ? 0 : highest + 1)
      return next
    },
    take(first, count, store) {
      const stored = ledger.atomically(() => {
        allocator.record(first, count)
        return store()
      })
      allocator.advance(first, count)
      return stored
    },
    record(first, count) {
      ledger.nonces.commitNonce(chainId, address, first + count - 1)
    },
    advance(first, count) {
      const last = first + count - 1
      if (next === undefined || last >= next) next = last + 1
    },
    giveBack(nonce) {
      if (next !== nonce + 1 || !ledger.nonces.rewindNextNonce(chainId, address, nonce)) return false
      next = nonce
      return true
    },
  }
  return allocator
}
