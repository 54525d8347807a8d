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
 * once and told to every wallet's transaction manager in turn (each finds its own transactions).
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
  return {
    subscribe(listener) {
      listeners.add(listener)
      watcher ??= startBlockWatcher({
        client: parameters.client,
        pollMs: parameters.pollMs,
        window: parameters.window,
        onNextPoll: parameters.onNextPoll,
        listener: {
          onBlocks: (blocks) => each((one) => one.onBlocks(blocks)),
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
