import type { Block, Hash, PublicClient } from 'viem'
import { getBlock } from 'viem/actions'

/** Blocks read at once when the watcher is behind. */
const maxBatch = 16n

/** The head poll interval while {@link BlockWatcher.hurry} is in effect, ms. */
export const hurriedPollMs = 20

/** Right after a send, the head is polled this often for {@link eagerWindowMs}, ms. */
const eagerPollMs = 3
/** How long after a send the eager polling lasts: a chain that mines at once has the block by then, ms. */
const eagerWindowMs = 60

/** A block as the watcher keeps it: enough to follow the chain and find ours in it. */
export type WatchedBlock = {
  number: bigint
  hash: Hash
  parentHash: Hash
  timestamp: bigint
  /** Null on chains without EIP-1559. */
  baseFeePerGas: bigint | null
  /** The hashes of the block's transactions. */
  transactions: readonly Hash[]
}

/** What the watcher tells its listener, in chain order. */
export type BlockWatcherListener = {
  /**
   * Blocks became part of the canonical chain, in order and contiguous (each number once, unless a
   * reorg replaces it): a node that got ahead of the watcher gives several at once.
   */
  onBlocks(blocks: readonly WatchedBlock[]): Promise<void> | void
  /**
   * The chain switched branches: every block above `forkNumber` that was reported is gone (its
   * replacements follow as `onBlocks`). `beyondWindow` when the fork lies below the blocks the watcher
   * remembers: the depth cannot be known, so everything since `forkNumber` must be re-checked.
   */
  onReorg(event: {
    forkNumber: bigint
    removed: readonly WatchedBlock[]
    beyondWindow: boolean
    /**
     * The new branch leaves the blocks this watcher saw, but the watcher started less than a window
     * ago: the fork lies at or below `forkNumber`, among blocks it never saw, so whatever was mined
     * there must be checked against the chain (the depth is still within the window).
     */
    beforeStart: boolean
  }): Promise<void> | void
  /** A poll failed (the node is unreachable); the watcher keeps polling. */
  onError?(error: unknown): void
  /**
   * Whether a transaction of this listener still waits for its block. Asked after each poll while
   * hurried: once no listener waits, the hurry ends and the head is polled at `pollMs` again (on a
   * chain that mines at once, the polls of the rest of the hurry would only land in the next
   * execution's quote window). Absent: always waiting, the hurry runs its course.
   */
  waiting?(): boolean
}

export type BlockWatcherParameters = {
  client: PublicClient
  /** How often the head is polled, ms. */
  pollMs: number
  /** Blocks remembered for reorg detection; a deeper reorg is reported `beyondWindow`. */
  window: number
  listener: BlockWatcherListener
  /** The first block reported is the one after this (default: the head at start, reported itself). */
  fromBlock?: bigint | undefined
  /** Told, after each poll, in how many ms the next one is due (tests read the hurry from it). */
  onNextPoll?: ((delayMs: number) => void) | undefined
}

/** A running block watcher of one chain. */
export type BlockWatcher = {
  /** The last canonical block reported, if any. */
  head(): WatchedBlock | undefined
  /**
   * Polls now, every few ms for a moment, then every {@link hurriedPollMs} for `forMs` (one of our transactions was just sent:
   * its block may come at once, as on anvil's automine or a fast L2), then at `pollMs` again.
   */
  hurry(forMs: number): void
  /**
   * Polls once now (also what the timer does); resolves when every new block was reported. Called
   * while a poll runs, another follows it.
   */
  poll(): Promise<void>
  stop(): Promise<void>
}

/**
 * Follows one chain head by polling its latest block, reads each new block once (its transaction
 * hashes only) and reports it, in order, with no number skipped; checks every block's parent hash
 * against the block before it, so a reorg is seen the moment its first block is, and reported with
 * the fork point before the new branch's blocks. One watcher per chain serves every wallet's
 * transaction manager: receipts are then read only for our transactions in a block, never polled
 * per transaction.
 *
 * @example
 * const watcher = startBlockWatcher({ client, pollMs: 250, window: 64, listener: {
 *   onBlocks: (blocks) => console.log(blocks.map((block) => block.number)),
 *   onReorg: ({ forkNumber }) => console.log('reorg above', forkNumber),
 * } })
 * await watcher.stop()
 */
export function startBlockWatcher(parameters: BlockWatcherParameters): BlockWatcher {
  let stopped = false
  const follower = createBlockFollower(parameters, () => stopped)
  const polls = createPollSchedule({
    ...parameters,
    advance: follower.advance,
    stopped: () => stopped,
  })
  polls.loop()
  return {
    head: follower.head,
    poll: polls.poll,
    hurry: polls.hurry,
    async stop() {
      stopped = true
      await polls.stop()
    },
  }
}

/**
 * The blocks of one chain as reported: `advance` reads the head, reports the blocks new since the
 * last call in order (a batch at a time when behind), and any fork first; the last `window` blocks
 * are remembered to find fork points.
 */
function createBlockFollower(parameters: BlockWatcherParameters, stopped: () => boolean) {
  const { client, window, listener } = parameters
  const known: WatchedBlock[] = []
  let next: bigint | undefined = parameters.fromBlock === undefined ? undefined : parameters.fromBlock + 1n
  const fetchBlock = async (number: bigint): Promise<WatchedBlock> =>
    watchedOf(await getBlock(client, { blockNumber: number, includeTransactions: false }))
  const at = (number: bigint) => known.find((block) => block.number === number)

  /** The block at `number` (or above) is not the one we reported: walk back to the common ancestor. */
  const reorgBelow = async (number: bigint) => {
    let forkNumber = number
    while (forkNumber >= 0n) {
      const mine = at(forkNumber)
      if (!mine) break
      const theirs = await fetchBlock(forkNumber)
      if (theirs.hash === mine.hash) break
      forkNumber -= 1n
    }
    // Out of known blocks: beyond the window only if the watcher held a whole window.
    const unknown = !at(forkNumber)
    await reportFork(forkNumber, unknown && known.length >= window, unknown && known.length < window)
  }

  const reportFork = async (forkNumber: bigint, beyondWindow: boolean, beforeStart = false) => {
    const removed = known.filter((entry) => entry.number > forkNumber)
    known.splice(0, known.length, ...known.filter((entry) => entry.number <= forkNumber))
    await listener.onReorg({ forkNumber, removed, beyondWindow, beforeStart })
    next = forkNumber + 1n
  }

  /** Remembers `accepted` (once each number, at most `window`), reports them, and moves on. */
  const report = async (accepted: readonly WatchedBlock[]) => {
    // Blocks told before to a listener that failed come again: each number is remembered once, or
    // the repeats would crowd the window and a shallow reorg would look deeper than it can know.
    const first = accepted[0]
    while (first && (known.at(-1)?.number ?? -1n) >= first.number) known.pop()
    for (const block of accepted) known.push(block)
    while (known.length > window) known.shift()
    if (accepted.length === 0) return false
    await listener.onBlocks(accepted)
    next = (accepted.at(-1) as WatchedBlock).number + 1n
    return true
  }

  /** Reads up to a batch of blocks from `from` to `head`, reported in order; true when some were new. */
  const advanceBatch = async (from: bigint, head: WatchedBlock): Promise<boolean> => {
    const count = Number(head.number - from + 1n > maxBatch ? maxBatch : head.number - from + 1n)
    const fetched = await Promise.all(
      Array.from({ length: count }, (_, i) => from + BigInt(i)).map((number) =>
        number === head.number ? head : fetchBlock(number),
      ),
    )
    // Told before (a listener failed, so the watcher did not move on) and replaced since: a reorg,
    // reported before the new blocks are; then they are read again.
    const replaced = fetched.find((block) => {
      const told = at(block.number)
      return told !== undefined && told.hash !== block.hash
    })
    if (replaced) {
      await reorgBelow(replaced.number)
      return false
    }
    const { accepted, forked } = linkedRun(fetched, at)
    const advanced = await report(accepted)
    if (forked !== undefined) await reorgBelow(forked)
    return advanced
  }

  return {
    head: () => known.at(-1),
    /** One poll: whether it reported a new block. */
    async advance(): Promise<boolean> {
      // The head block itself rather than its number: when it is the one block new since the last
      // poll (the usual case), it is not read twice.
      const head = watchedOf(await getBlock(client, { blockTag: 'latest', includeTransactions: false }))
      next ??= head.number
      const last = known.at(-1)
      if (last && head.number <= last.number) {
        // No new block, but the head may have been replaced (a reorg of equal length) or removed (a rollback).
        if (at(head.number)?.hash !== head.hash) await reorgBelow(head.number)
        else if (head.number < last.number) await reportFork(head.number, false)
      }
      let advanced = false
      // Behind by several blocks: read up to a batch of them at once, then check them in order.
      while (!stopped() && next <= head.number) if (await advanceBatch(next, head)) advanced = true
      return advanced
    },
  }
}

/** The blocks of `fetched` that each follow the one before (or the known block below), and where the run broke. */
function linkedRun(
  fetched: readonly WatchedBlock[],
  at: (number: bigint) => WatchedBlock | undefined,
): { accepted: WatchedBlock[]; forked: bigint | undefined } {
  const accepted: WatchedBlock[] = []
  for (const block of fetched) {
    const parent = accepted.at(-1) ?? at(block.number - 1n)
    if (parent && parent.hash !== block.parentHash) return { accepted, forked: block.number - 1n }
    accepted.push(block)
  }
  return { accepted, forked: undefined }
}

/**
 * When the watcher polls: every `pollMs`; hurried (one of our transactions was just sent), every
 * few ms while blocks keep coming and every {@link hurriedPollMs} otherwise, until nothing of ours
 * waits any more. A poll asked for while one runs is run once more after it.
 */
function createPollSchedule(parameters: {
  pollMs: number
  listener: BlockWatcherListener
  onNextPoll?: ((delayMs: number) => void) | undefined
  advance: () => Promise<boolean>
  stopped: () => boolean
}) {
  const { pollMs, listener, stopped } = parameters
  let timer: NodeJS.Timeout | undefined
  let running: Promise<void> | undefined
  /** Whether the last poll reported a new block. */
  let advanced = false
  // A poll asked for while one runs is run once more after it: the block it wants may have come
  // after the running one read the head.
  let again = false
  const poll = (): Promise<void> => {
    if (running) {
      again = true
      return running
    }
    running = parameters
      .advance()
      .then((reported) => {
        if (reported) advanced = true
      })
      .catch((error: unknown) => listener.onError?.(error))
      .finally(() => {
        running = undefined
        if (again && !stopped()) {
          again = false
          void poll()
        }
      })
    return running
  }
  let hurriedUntil = 0
  let eagerUntil = 0
  const delayNow = () => {
    // Nothing of ours waits for a block any more: the hurry has done its work.
    if (performance.now() < hurriedUntil && listener.waiting?.() === false) {
      hurriedUntil = 0
      eagerUntil = 0
    }
    // Hurried and a block came: another may follow at once (a chain that mines each transaction
    // in a block of its own, like anvil's automine), so look again right away.
    const now = performance.now()
    const eager = advanced || now < eagerUntil
    if (now >= hurriedUntil) return pollMs
    if (!eager) return Math.min(pollMs, hurriedPollMs)
    return advanced ? 1 : eagerPollMs
  }
  const loop = () => {
    if (stopped()) return
    void poll().finally(() => {
      if (stopped()) return
      clearTimeout(timer)
      const delay = delayNow()
      advanced = false
      timer = setTimeout(loop, delay)
      parameters.onNextPoll?.(delay)
    })
  }
  return {
    loop,
    poll,
    hurry(forMs: number) {
      hurriedUntil = Math.max(hurriedUntil, performance.now() + forMs)
      eagerUntil = performance.now() + Math.min(forMs, eagerWindowMs)
      clearTimeout(timer)
      loop()
    },
    async stop() {
      clearTimeout(timer)
      await running
    },
  }
}

function watchedOf(block: Block<bigint, false>): WatchedBlock {
  if (block.number === null || block.hash === null)
    throw new Error('the node returned a pending block where a mined one was asked for')
  return {
    number: block.number,
    hash: block.hash,
    parentHash: block.parentHash,
    timestamp: block.timestamp,
    baseFeePerGas: block.baseFeePerGas,
    transactions: block.transactions,
  }
}
