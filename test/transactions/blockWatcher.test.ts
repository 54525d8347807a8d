import { type AnvilInstance, startAnvil } from '@stockroute/sandbox/anvil.js'
import { createPublicClient, createTestClient, http } from 'viem'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import {
  type BlockWatcher,
  type BlockWatcherListener,
  startBlockWatcher,
} from '../../src/transactions/blockWatcher.js'

// A chain of its own: the tests reorganize it.
let anvil: AnvilInstance
beforeAll(async () => {
  anvil = await startAnvil({ chainId: 31_990 })
})
afterAll(() => anvil?.stop())

/** A listener that records what it is told, and fails the next `failures` reports of blocks (a ledger error). */
function recordingListener() {
  const recorded = {
    told: [] as { number: bigint; hash: string }[],
    reorgs: [] as { forkNumber: bigint; removed: bigint[]; beyondWindow: boolean }[],
    errors: 0,
    failures: 0,
  }
  const listener: BlockWatcherListener = {
    onBlocks(blocks) {
      if (recorded.failures > 0) {
        recorded.failures -= 1
        throw new Error('the ledger is busy')
      }
      recorded.told.push(...blocks.map((block) => ({ number: block.number, hash: block.hash })))
    },
    onReorg: (event) =>
      void recorded.reorgs.push({
        forkNumber: event.forkNumber,
        removed: event.removed.map((block) => block.number),
        beyondWindow: event.beyondWindow,
      }),
    onError: () => {
      recorded.errors += 1
    },
  }
  return { recorded, listener }
}

describe('block watcher', () => {
  const client = () => createPublicClient({ transport: http(anvil.rpcUrl) })
  const testClient = () => createTestClient({ mode: 'anvil', transport: http(anvil.rpcUrl) })
  let watcher: BlockWatcher | undefined
  afterEach(async () => {
    await watcher?.stop()
    watcher = undefined
  })

  it('remembers a block told again after its listener failed once, so a shallow reorg stays within its window', async () => {
    const { recorded, listener } = recordingListener()
    watcher = startBlockWatcher({ client: client(), pollMs: 20, window: 4, listener })
    const lastTold = () => recorded.told.at(-1)?.number
    await expect.poll(() => recorded.told.length, { timeout: 10_000 }).toBe(1)
    const start = lastTold() as bigint
    for (let n = 1n; n <= 3n; n++) {
      await testClient().mine({ blocks: 1 })
      await expect.poll(lastTold, { timeout: 10_000 }).toBe(start + n)
    }
    // The next block fails five times before it is recorded: it is told six times in all.
    recorded.failures = 5
    await testClient().mine({ blocks: 1 })
    await expect.poll(lastTold, { timeout: 10_000 }).toBe(start + 4n)
    expect(recorded.errors).toBe(5)

    // Two blocks replaced: the fork is the block below them, one the watcher remembers.
    await testClient().request({ method: 'anvil_reorg', params: [2, []] } as never)
    await expect.poll(() => recorded.reorgs.length, { timeout: 10_000 }).toBe(1)
    expect(recorded.reorgs[0]).toEqual({
      forkNumber: start + 2n,
      removed: [start + 3n, start + 4n],
      beyondWindow: false,
    })
  })

  it('reports a block told to a failing listener and replaced before it was told again as a reorg', async () => {
    const { recorded, listener } = recordingListener()
    // Polled by hand: the block is replaced and another mined between two polls.
    watcher = startBlockWatcher({ client: client(), pollMs: 60_000, window: 8, listener })
    await expect.poll(() => recorded.told.length, { timeout: 10_000 }).toBe(1)
    const start = recorded.told[0]?.number as bigint
    await testClient().mine({ blocks: 1 })
    await watcher.poll()
    recorded.failures = 1
    await testClient().mine({ blocks: 1 })
    await watcher.poll() // start + 2: its listener fails
    const failedHash = (await client().getBlock({ blockNumber: start + 2n })).hash
    await testClient().request({ method: 'anvil_reorg', params: [1, []] } as never)
    await testClient().mine({ blocks: 1 })
    await watcher.poll()
    expect(recorded.reorgs).toEqual([{ forkNumber: start + 1n, removed: [start + 2n], beyondWindow: false }])
    expect(recorded.told.map((block) => block.number)).toEqual([start, start + 1n, start + 2n, start + 3n])
    expect(recorded.told[2]?.hash).not.toBe(failedHash)
  })
})
