import { createPublicClient, createTestClient, http } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type AnvilInstance, startAnvil } from '../../src/sandbox/anvil.js'
import { type BlockWatcher, startBlockWatcher } from '../../src/transactions/blockWatcher.js'

// A chain of its own: the test reorganizes it.
let anvil: AnvilInstance
beforeAll(async () => {
  anvil = await startAnvil({ chainId: 31_990 })
})
afterAll(() => anvil?.stop())

describe('block watcher', () => {
  it('remembers a block told again after its listener failed once, so a shallow reorg stays within its window', async () => {
    const client = createPublicClient({ transport: http(anvil.rpcUrl) })
    const testClient = createTestClient({ mode: 'anvil', transport: http(anvil.rpcUrl) })
    const told: bigint[] = []
    const reorgs: { forkNumber: bigint; removed: bigint[]; beyondWindow: boolean }[] = []
    let failures = 0
    let errors = 0
    let watcher: BlockWatcher | undefined
    try {
      watcher = startBlockWatcher({
        client,
        pollMs: 20,
        window: 4,
        listener: {
          onBlocks(blocks) {
            if (failures > 0) {
              failures -= 1
              throw new Error('the ledger is busy')
            }
            told.push(...blocks.map((block) => block.number))
          },
          onReorg: (event) =>
            void reorgs.push({
              forkNumber: event.forkNumber,
              removed: event.removed.map((block) => block.number),
              beyondWindow: event.beyondWindow,
            }),
          onError: () => {
            errors += 1
          },
        },
      })
      await expect.poll(() => told.length, { timeout: 10_000 }).toBe(1)
      const start = told[0] as bigint
      for (let n = 1n; n <= 3n; n++) {
        await testClient.mine({ blocks: 1 })
        await expect.poll(() => told.at(-1), { timeout: 10_000 }).toBe(start + n)
      }
      // The next block fails five times before it is recorded: it is told six times in all.
      failures = 5
      await testClient.mine({ blocks: 1 })
      await expect.poll(() => told.at(-1), { timeout: 10_000 }).toBe(start + 4n)
      expect(errors).toBe(5)

      // Two blocks replaced: the fork is the block below them, one the watcher remembers.
      await testClient.request({ method: 'anvil_reorg', params: [2, []] } as never)
      await expect.poll(() => reorgs.length, { timeout: 10_000 }).toBe(1)
      expect(reorgs[0]).toEqual({
        forkNumber: start + 2n,
        removed: [start + 3n, start + 4n],
        beyondWindow: false,
      })
    } finally {
      await watcher?.stop()
    }
  })

  it('reports a block told to a failing listener and replaced before it was told again as a reorg', async () => {
    const client = createPublicClient({ transport: http(anvil.rpcUrl) })
    const testClient = createTestClient({ mode: 'anvil', transport: http(anvil.rpcUrl) })
    const told: { number: bigint; hash: string }[] = []
    const reorgs: { forkNumber: bigint; removed: bigint[]; beyondWindow: boolean }[] = []
    let failures = 0
    // Polled by hand: the block is replaced and another mined between two polls.
    const watcher = startBlockWatcher({
      client,
      pollMs: 60_000,
      window: 8,
      listener: {
        onBlocks(blocks) {
          if (failures > 0) {
            failures -= 1
            throw new Error('the ledger is busy')
          }
          told.push(...blocks.map((block) => ({ number: block.number, hash: block.hash })))
        },
        onReorg: (event) =>
          void reorgs.push({
            forkNumber: event.forkNumber,
            removed: event.removed.map((block) => block.number),
            beyondWindow: event.beyondWindow,
          }),
        onError: () => undefined,
      },
    })
    try {
      await expect.poll(() => told.length, { timeout: 10_000 }).toBe(1)
      const start = told[0]?.number as bigint
      await testClient.mine({ blocks: 1 })
      await watcher.poll()
      failures = 1
      await testClient.mine({ blocks: 1 })
      await watcher.poll() // start + 2: its listener fails
      const failedHash = (await client.getBlock({ blockNumber: start + 2n })).hash
      await testClient.request({ method: 'anvil_reorg', params: [1, []] } as never)
      await testClient.mine({ blocks: 1 })
      await watcher.poll()
      expect(reorgs).toEqual([{ forkNumber: start + 1n, removed: [start + 2n], beyondWindow: false }])
      expect(told.map((block) => block.number)).toEqual([start, start + 1n, start + 2n, start + 3n])
      expect(told[2]?.hash).not.toBe(failedHash)
    } finally {
      await watcher.stop()
    }
  })
})
