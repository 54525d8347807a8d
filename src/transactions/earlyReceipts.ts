import type { Hash, TransactionReceipt } from 'viem'

/** Receipts asked for as soon as our transactions are accepted. */
export type EarlyReceipts = {
  /** Asks for the receipts of transactions the node just accepted. */
  ask(hashes: readonly Hash[]): void
  /** The receipt asked for early, if any (taken once); undefined when none was asked or it failed. */
  take(hash: Hash): Promise<TransactionReceipt | undefined> | undefined
}

/**
 * On a chain that mines at once (anvil's automine, fast L2s) a transaction's receipt exists by the
 * time the block watcher reports its block; asking for it beside the watcher's poll, rather than
 * after it, saves a round trip. The inclusion is still decided by the block watcher (the receipt is
 * used only if it names the block the watcher reported). Bounded: a receipt never taken is dropped.
 *
 * @example
 * const early = createEarlyReceipts((hash) => receiptOf(core, hash))
 * early.ask([record.hash])
 * const receipt = (await early.take(tx.hash)) ?? (await receiptOf(core, tx.hash))
 */
export function createEarlyReceipts(
  fetchReceipt: (hash: Hash) => Promise<TransactionReceipt | undefined>,
  limit = 256,
): EarlyReceipts {
  const asked = new Map<string, Promise<TransactionReceipt | undefined>>()
  return {
    ask(hashes) {
      if (asked.size + hashes.length > limit) asked.clear()
      for (const hash of hashes)
        asked.set(
          hash.toLowerCase(),
          fetchReceipt(hash).catch(() => undefined),
        )
    },
    take(hash) {
      const key = hash.toLowerCase()
      const early = asked.get(key)
      asked.delete(key)
      return early
    },
  }
}
