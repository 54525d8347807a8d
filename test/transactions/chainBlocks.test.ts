import { createPublicClient, http } from 'viem'
import { afterEach, describe, expect, it } from 'vitest'
import { type ChainBlocks, createChainBlocks } from '../../src/transactions/chainBlocks.js'
import { chainWithRouter } from '../helpers/localChains.js'

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/** Chain blocks on the test chain whose head polls are counted (one request per poll: no batching). */
function countedChainBlocks(): { blocks: ChainBlocks; polls: () => number } {
  let polls = 0
  const client = createPublicClient({
    transport: http(chainWithRouter().rpcUrl, {
      onFetchRequest: async (request) => {
        if ((await request.clone().text()).includes('eth_getBlockByNumber')) polls += 1
      },
    }),
  })
  // A slow normal poll, so that the hurry's polls stand out.
  return { blocks: createChainBlocks({ client, pollMs: 400, window: 16 }), polls: () => polls }
}

/** Head polls during `ms`. */
async function pollsDuring(counted: { polls: () => number }, ms: number): Promise<number> {
  const before = counted.polls()
  await pause(ms)
  return counted.polls() - before
}

describe('chain blocks: the hurry after a send', () => {
  let running: ChainBlocks | undefined
  afterEach(async () => {
    await running?.stop()
    running = undefined
  })

  it('ends once no wallet waits for a block, and starts again with the next send', async () => {
    const counted = countedChainBlocks()
    running = counted.blocks
    let aWaits = true
    let bWaits = false
    counted.blocks.subscribe({ onBlocks: () => undefined, onReorg: () => undefined, waiting: () => aWaits })
    counted.blocks.subscribe({ onBlocks: () => undefined, onReorg: () => undefined, waiting: () => bWaits })
    await pause(50)

    counted.blocks.hurry(5_000)
    // One wallet waits: polled every few ms (a slow normal poll would give at most one here).
    expect(await pollsDuring(counted, 300)).toBeGreaterThanOrEqual(4)

    aWaits = false
    bWaits = true
    // The other one waits now: still hurried.
    expect(await pollsDuring(counted, 300)).toBeGreaterThanOrEqual(4)

    bWaits = false
    // The poll under way and the one that finds nobody waiting; then every 400 ms.
    await pause(100)
    expect(await pollsDuring(counted, 700)).toBeLessThanOrEqual(2)

    aWaits = true
    counted.blocks.hurry(5_000)
    expect(await pollsDuring(counted, 300)).toBeGreaterThanOrEqual(4)
  })

  it('runs its course for listeners that do not say whether they wait', async () => {
    const counted = countedChainBlocks()
    running = counted.blocks
    counted.blocks.subscribe({ onBlocks: () => undefined, onReorg: () => undefined })
    await pause(50)
    counted.blocks.hurry(5_000)
    await pause(100)
    expect(await pollsDuring(counted, 700)).toBeGreaterThanOrEqual(8)
  })
})
