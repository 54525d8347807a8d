import { startRpcFaultProxy } from '@stockroute/sandbox/rpcFaultProxy.js'
import { createPublicClient, http } from 'viem'
import { afterAll, describe, expect, it } from 'vitest'
import { createFeeSource, replacementFees } from '../../src/transactions/fees.js'
import { chainWithRouter } from '../helpers/localChains.js'

describe('replacementFees', () => {
  const market = { maxFeePerGas: 50n, maxPriorityFeePerGas: 1n }

  it('raises both fees by at least the bump over the replaced transaction', () => {
    const fees = replacementFees({ maxFeePerGas: 1_000n, maxPriorityFeePerGas: 100n }, market, 1_250, 10_000n)
    expect(fees).toEqual({ maxFeePerGas: 1_126n, maxPriorityFeePerGas: 114n })
  })

  it('follows the market when it rose above the bump', () => {
    const fees = replacementFees(
      { maxFeePerGas: 100n, maxPriorityFeePerGas: 1n },
      { maxFeePerGas: 5_000n, maxPriorityFeePerGas: 300n },
      1_250,
      10_000n,
    )
    expect(fees).toEqual({ maxFeePerGas: 5_000n, maxPriorityFeePerGas: 300n })
  })

  it('never offers more than the cap: no replacement then', () => {
    expect(
      replacementFees({ maxFeePerGas: 9_000n, maxPriorityFeePerGas: 1n }, market, 1_250, 10_000n),
    ).toBeUndefined()
  })

  it('a zero fee still gets a strictly higher replacement', () => {
    const fees = replacementFees(
      { maxFeePerGas: 0n, maxPriorityFeePerGas: 0n },
      { maxFeePerGas: 0n, maxPriorityFeePerGas: 0n },
      1_250,
      10n,
    )
    expect(fees).toEqual({ maxFeePerGas: 1n, maxPriorityFeePerGas: 1n })
  })
})

describe('createFeeSource', () => {
  const proxies: { stop(): Promise<void> }[] = []
  afterAll(() => Promise.all(proxies.map((proxy) => proxy.stop())))

  it('reads the priority fee again in the background, so a send never waits for it while it is fresh', async () => {
    // The real node behind a loopback proxy that counts the fee reads and can cut them.
    const proxy = await startRpcFaultProxy({ upstream: chainWithRouter().rpcUrl })
    proxies.push(proxy)
    const reads = () => proxy.stats().byMethod.eth_maxPriorityFeePerGas?.requests ?? 0
    const client = createPublicClient({ transport: http(proxy.url) })
    let clock = 1_000_000
    const fees = createFeeSource(client, 10n ** 15n, () => clock)
    const block = { baseFeePerGas: 1_000_000_000n }

    fees.newBlock(block)
    const first = await fees.current() // no priority fee yet: the send reads it
    expect(reads()).toBe(1)
    expect(first.maxFeePerGas).toBe(1_200_000_000n + first.maxPriorityFeePerGas)

    clock += 3_000
    fees.newBlock(block) // 3 s old: nothing read
    await fees.current()
    expect(reads()).toBe(1)

    // 4.5 s old: the block starts a read in the background. The node's answers never arrive (the
    // proxy cuts every call, viem's fallback reads too), and the send goes on with the fee it has,
    // still under 5 s old.
    proxy.setFaults({ cutRate: 1 })
    clock += 1_500
    fees.newBlock(block)
    expect(await fees.current()).toEqual(first)
    await expect.poll(reads).toBe(2)

    // A quiet spell: past 5 s old, a send waits for a read (and fails while the node cannot answer).
    clock += 10_000
    fees.newBlock(block)
    await expect(fees.current()).rejects.toThrow()
    proxy.setFaults({})
    fees.newBlock(block)
    expect((await fees.current()).maxPriorityFeePerGas).toBe(first.maxPriorityFeePerGas)
  })
})
