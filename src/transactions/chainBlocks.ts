import type { PublicClient } from 'viem'
import {
  type BlockWatcher,
  type BlockWatcherListener,
  startBlockWatcher,
  type WatchedBlock,
} from './blockWatcher.js'

/** One chain's block watcher, shared by the transaction managers of the chain's wallets. */
export type ChainBlocks = {
  /** Adds a listener (the first one starts the watcher); returns its removal. */
  subscribe(listener: BlockWatcherListener): () => void
  /** See {@link BlockWatcher.hurry}. */
  hurry(forMs: number): void
  /** The last canonical block reported, if any. */
  head(): WatchedBlock | undefined
  /** Stops the watcher (after the last manager stopped). */
  stop(): Promise<void>
}

/**
 * One block watcher per chain, whatever the number of wallets trading on it: each block is read
 * once and told to every wallet's transaction manager at once (each finds its own transactions).
 * At once, not in turn: the wallets' receipts are then asked for in the same turn of the event loop
 * (one batch request), their inclusions wait for the engine's held quotes together (a chain's fills
 * wait at most `maxInclusionDelayMs`, not that once per wallet) and share one commit. Reorgs are
 * still told in turn: they are rare, and their reversals are then written in a known order.
 *
 * @example
 * const blocks = createChainBlocks({ client: publicClient, pollMs: 250, window: 64 })
 * const managers = accounts.map((account) => createTransactionManager({ ...parameters, account, blocks }))
 */
export function createChainBlocks(parameters: {
  client: PublicClient
  pollMs: number
  window: number
  /** See the block watcher's `onNextPoll`. */
  onNextPoll?: ((delayMs: number) => void) | undefined
}): ChainBlocks {
  const listeners = new Set<BlockWatcherListener>()
  let watcher: BlockWatcher | undefined
  const each = async (call: (listener: BlockWatcherListener) => Promise<void> | void) => {
    for (const listener of [...listeners]) await call(listener)
  }
  /** Every listener called at once; the first failure is thrown once all have settled (the watcher then reports it and reads the blocks again). */
  const all = async (call: (listener: BlockWatcherListener) => Promise<void> | void) => {
    const settled = await Promise.allSettled([...listeners].map(async (listener) => call(listener)))
    const failed = settled.find((outcome): outcome is PromiseRejectedResult => outcome.status === 'rejected')
    if (failed) throw failed.reason
  }
  return {
    subscribe(listener) {
      listeners.add(listener)
      watcher ??= startBlockWatcher({
        client: parameters.client,
        pollMs: parameters.pollMs,
        window: parameters.window,
        onNextPoll: parameters.onNextPoll,
        listener: {
          onBlocks: (blocks) => all((one) => one.onBlocks(blocks)),
          onReorg: (event) => each((one) => one.onReorg(event)),
          onError: (error) => {
            for (const one of listeners) one.onError?.(error)
          },
          // The hurry lasts while any wallet's transaction waits for its block.
          waiting: () => [...listeners].some((one) => one.waiting?.() ?? true),
        },
      })
      return () => {
        listeners.delete(listener)
      }
    },
    hurry: (forMs) => watcher?.hurry(forMs),
    head: () => watcher?.head(),
    async stop() {
      await watcher?.stop()
    },
  }
}
