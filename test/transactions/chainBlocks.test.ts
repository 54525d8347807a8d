import { createPublicClient, http } from 'viem'
import { afterEach, describe, expect, it } from 'vitest'
import type { WatchedBlock } from '../../src/transactions/blockWatcher.js'
import { type ChainBlocks, createChainBlocks } from '../../src/transactions/chainBlocks.js'
import { hurriedPollMs } from '../../src/transactions/index.js'
import { chainWithRouter } from '../helpers/localChains.js'

// The hurry after a send, read from the delay the watcher gives its next poll after each one (an
// order of polls, not a count in a stretch of time: a loaded machine runs fewer of them).

/** A slow normal poll, so that the hurry's polls stand out. */
const pollMs = 400

/** Chain blocks on the test chain, with the delay of each next poll as it is decided. */
function scheduledChainBlocks(): { blocks: ChainBlocks; nextDelay: () => Promise<number> } {
  let waiting: ((delayMs: number) => void)[] = []
  const blocks = createChainBlocks({
    client: createPublicClient({ transport: http(chainWithRouter().rpcUrl) }),
    pollMs,
    window: 16,
    onNextPoll: (delayMs) => {
      const resolvers = waiting
      waiting = []
      for (const resolve of resolvers) resolve(delayMs)
    },
  })
  return {
    blocks,
    nextDelay: () =>
      new Promise((resolve) => {
        waiting.push(resolve)
      }),
  }
}

/** The delays of the next `count` polls. */
async function nextDelays(scheduled: { nextDelay: () => Promise<number> }, count: number) {
  const delays: number[] = []
  for (let index = 0; index < count; index++) delays.push(await scheduled.nextDelay())
  return delays
}

/** The chain blocks a test started, stopped after it. */
let running: ChainBlocks | undefined
afterEach(async () => {
  await running?.stop()
  running = undefined
})

describe('chain blocks: the hurry after a send', () => {
  it('ends once no wallet waits for a block, and starts again with the next send', async () => {
    const scheduled = scheduledChainBlocks()
    running = scheduled.blocks
    let aWaits = true
    let bWaits = false
    scheduled.blocks.subscribe({ onBlocks: () => undefined, onReorg: () => undefined, waiting: () => aWaits })
    scheduled.blocks.subscribe({ onBlocks: () => undefined, onReorg: () => undefined, waiting: () => bWaits })
    expect(await scheduled.nextDelay()).toBe(pollMs)

    scheduled.blocks.hurry(5_000)
    // One wallet waits: polled again within the hurried interval, poll after poll.
    for (const delay of await nextDelays(scheduled, 5)) expect(delay).toBeLessThanOrEqual(hurriedPollMs)

    aWaits = false
    bWaits = true
    // The other one waits now: still hurried.
    for (const delay of await nextDelays(scheduled, 3)) expect(delay).toBeLessThanOrEqual(hurriedPollMs)

    bWaits = false
    // The poll under way may have been decided before; the one after finds nobody waiting.
    const [, afterNobody] = await nextDelays(scheduled, 2)
    expect(afterNobody).toBe(pollMs)
    expect(await scheduled.nextDelay()).toBe(pollMs)

    aWaits = true
    scheduled.blocks.hurry(5_000)
    for (const delay of await nextDelays(scheduled, 3)) expect(delay).toBeLessThanOrEqual(hurriedPollMs)
  })

  it('runs its course for listeners that do not say whether they wait', async () => {
    const scheduled = scheduledChainBlocks()
    running = scheduled.blocks
    scheduled.blocks.subscribe({ onBlocks: () => undefined, onReorg: () => undefined })
    expect(await scheduled.nextDelay()).toBe(pollMs)
    scheduled.blocks.hurry(5_000)
    for (const delay of await nextDelays(scheduled, 10)) expect(delay).toBeLessThanOrEqual(hurriedPollMs)
  })
})

describe('chain blocks: every wallet hears of a block at once', () => {
  it('tells the second wallet while the first one still works on the same blocks', async () => {
    running = scheduledChainBlocks().blocks
    const seenBySecond: bigint[] = []
    let secondHeard: (() => void) | undefined
    const secondHears = new Promise<void>((resolve) => {
      secondHeard = resolve
    })
    const firstSaw: { blocks: bigint[]; secondHadThem: boolean }[] = []
    running.subscribe({
      // Holds its blocks until the second wallet has heard of them (or 5 s: told in turn, it never would).
      onBlocks: async (blocks) => {
        const numbers = blocks.map((block) => block.number)
        await Promise.race([secondHears, new Promise((resolve) => setTimeout(resolve, 5_000))])
        firstSaw.push({ blocks: numbers, secondHadThem: numbers.every((n) => seenBySecond.includes(n)) })
      },
      onReorg: () => undefined,
    })
    running.subscribe({
      onBlocks: (blocks) => {
        seenBySecond.push(...blocks.map((block) => block.number))
        secondHeard?.()
      },
      onReorg: () => undefined,
    })
    // The first report (the head at start) is the blocks both wallets hear of.
    await expect.poll(() => firstSaw.length, { timeout: 10_000 }).toBeGreaterThan(0)
    expect(firstSaw[0]?.secondHadThem).toBe(true)
  })

  it('tells every wallet when one fails, reports the failure and tells them again', async () => {
    running = scheduledChainBlocks().blocks
    const errors: unknown[] = []
    const heardByFirst: bigint[][] = []
    const heardBySecond: bigint[][] = []
    let failures = 1
    const numbersOf = (blocks: readonly WatchedBlock[]) => blocks.map((block) => block.number)
    running.subscribe({
      onBlocks: (blocks) => {
        heardByFirst.push(numbersOf(blocks))
        if (failures-- > 0) throw new Error('the ledger is busy')
      },
      onReorg: () => undefined,
      onError: (error) => errors.push(error),
    })
    running.subscribe({
      onBlocks: (blocks) => void heardBySecond.push(numbersOf(blocks)),
      onReorg: () => undefined,
    })
    // The first report (the head at start; both subscribed before it) fails for the first wallet only.
    await expect.poll(() => errors.length, { timeout: 10_000 }).toBe(1)
    expect((errors[0] as Error).message).toBe('the ledger is busy')
    expect(heardBySecond[0]).toEqual(heardByFirst[0])
    // The same blocks come again, to both.
    running.hurry(1_000)
    await expect.poll(() => heardByFirst.length, { timeout: 10_000 }).toBeGreaterThan(1)
    expect(heardByFirst[1]?.[0]).toBe(heardByFirst[0]?.[0])
    await expect.poll(() => heardBySecond.length, { timeout: 10_000 }).toBeGreaterThan(1)
    expect(heardBySecond[1]?.[0]).toBe(heardByFirst[0]?.[0])
  })
})
