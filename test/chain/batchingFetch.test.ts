import { createPublicClient, http } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterEach, describe, expect, it } from 'vitest'
import { createBatchingFetch } from '../../src/chain/batchingFetch.js'
import { defineRpcChain } from '../../src/chain/clients.js'
import { createNodeFetch } from '../../src/chain/nodeFetch.js'
import { chainWithRouter, clientsFor } from '../helpers/localChains.js'
import { batchRefusingProxy, countingProxy, failingRpc, type RpcServer } from './rpcServers.js'

const servers: RpcServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

/** A public client over `url` whose transport batches through a fresh batching fetch. */
function clientOver(url: string, chainId: number, maxBatchSize?: number) {
  const fetchFn = createBatchingFetch(createNodeFetch(), { maxBatchSize })
  const client = createPublicClient({
    chain: defineRpcChain({ chainId, rpcUrl: url }),
    transport: http(url, { fetchFn, retryCount: 0 }),
  })
  return { client, fetchFn }
}

describe('createBatchingFetch', () => {
  const chain = chainWithRouter()

  it('sends the calls of one turn as one batch request and gives each caller its own answer', async () => {
    const proxy = await countingProxy(chain.rpcUrl)
    servers.push(proxy)
    const { client, fetchFn } = clientOver(proxy.url, chain.chainId)
    const direct = createPublicClient({ transport: http(chain.rpcUrl) })
    // Addresses of this test's own with balances it sets: other files trade on the shared chain, so
    // the payer's balance and the head move meanwhile.
    const { testClient } = clientsFor(chain, generatePrivateKey())
    const addresses = [1n, 2n, 3n].map(() => privateKeyToAccount(generatePrivateKey()).address)
    const expected = [1001n, 2002n, 3003n]
    for (const [index, address] of addresses.entries())
      await testClient.setBalance({ address, value: expected[index] ?? 0n })
    const before = await direct.getBlockNumber({ cacheTime: 0 })
    const [number, ...balances] = await Promise.all([
      client.getBlockNumber({ cacheTime: 0 }),
      ...addresses.map((address) => client.getBalance({ address })),
    ])
    expect(balances).toEqual(expected)
    expect(number).toBeGreaterThanOrEqual(before)
    expect(number).toBeLessThanOrEqual(await direct.getBlockNumber({ cacheTime: 0 }))
    expect(proxy.requests()).toBe(1)
    expect(proxy.methods).toEqual(['eth_blockNumber', 'eth_getBalance', 'eth_getBalance', 'eth_getBalance'])
    expect(fetchFn.stats()).toMatchObject({ requests: 1, batchedCalls: 4, refusedBy: [] })
  })

  it('sendQueued hands the calls made so far to the HTTP client before the work awaited after it, in one batch', async () => {
    const proxy = await countingProxy(chain.rpcUrl)
    servers.push(proxy)
    const { client, fetchFn } = clientOver(proxy.url, chain.chainId)
    // The calls are made a promise step later, as the engine's simulation is (after the allowance
    // layout's lookup): the turn's own flush is then queued after sendQueued's immediate, and without
    // sendQueued's own flush nothing would have left by the line after the await.
    const answers = (async () => {
      await Promise.resolve()
      return Promise.all([
        client.getBlockNumber({ cacheTime: 0 }),
        client.getBalance({ address: chain.payerAddress }),
      ])
    })()
    await fetchFn.sendQueued()
    expect(fetchFn.stats()).toMatchObject({ requests: 1, batchedCalls: 2 })
    await answers
    // The turn's flush found nothing left: still one request.
    expect(fetchFn.stats()).toMatchObject({ requests: 1, batchedCalls: 2 })
    expect(proxy.requests()).toBe(1)
    // Nothing queued: it resolves all the same.
    await fetchFn.sendQueued()
    expect(fetchFn.stats().requests).toBe(1)
  })

  it('sends a call made alone at once, as a plain request; maxBatchSize splits a large turn', async () => {
    const proxy = await countingProxy(chain.rpcUrl)
    servers.push(proxy)
    const alone = clientOver(proxy.url, chain.chainId)
    await alone.client.getBlockNumber({ cacheTime: 0 })
    expect(alone.fetchFn.stats()).toMatchObject({ requests: 1, batchedCalls: 0 })

    const small = clientOver(proxy.url, chain.chainId, 2)
    await Promise.all(Array.from({ length: 5 }, () => small.client.request({ method: 'eth_gasPrice' })))
    // 5 calls at most 2 a request: 2 + 2 + 1.
    expect(small.fetchFn.stats()).toMatchObject({ requests: 3, batchedCalls: 4 })
    expect(() => createBatchingFetch(createNodeFetch(), { maxBatchSize: 0 })).toThrow(
      'maxBatchSize 0 must be a whole number >= 1',
    )
  })

  it('ends only the aborted caller’s wait, and keeps each caller’s own JSON-RPC id', async () => {
    const proxy = await countingProxy(chain.rpcUrl)
    servers.push(proxy)
    const fetchFn = createBatchingFetch(createNodeFetch())
    const call = (id: number, method: string, signal?: AbortSignal) =>
      fetchFn(proxy.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id, method, params: [] }),
        ...(signal ? { signal } : {}),
      })
    const controller = new AbortController()
    const kept = [call(7, 'eth_chainId'), call(8, 'eth_blockNumber')]
    const aborted = call(9, 'eth_gasPrice', controller.signal)
    controller.abort()
    await expect(aborted).rejects.toThrow(/abort/i)
    const answers = await Promise.all(kept.map(async (response) => JSON.parse(await (await response).text())))
    expect(answers[0]).toMatchObject({ id: 7, result: `0x${chain.chainId.toString(16)}` })
    expect(answers[1]).toMatchObject({ id: 8 })
    // The aborted call never left: one request, two calls.
    expect(proxy.requests()).toBe(1)
    expect(proxy.methods).toEqual(['eth_chainId', 'eth_blockNumber'])
  })

  it('sends each call alone to a node that refuses batches, and stops batching there', async () => {
    const proxy = await batchRefusingProxy(chain.rpcUrl)
    servers.push(proxy)
    const { client, fetchFn } = clientOver(proxy.url, chain.chainId)
    const first = await Promise.all([client.getChainId(), client.getBlockNumber({ cacheTime: 0 })])
    expect(first[0]).toBe(chain.chainId)
    // The refused batch, then each call alone.
    expect(proxy.requests()).toBe(3)
    await Promise.all([client.getChainId(), client.getBlockNumber({ cacheTime: 0 })])
    expect(proxy.requests()).toBe(5)
    expect(fetchFn.stats().refusedBy).toEqual([new URL(proxy.url).origin])
  })

  it('gives every caller of a batch the HTTP error the node answered', async () => {
    const rpc = await failingRpc()
    servers.push(rpc)
    const { client } = clientOver(rpc.url, 31_337)
    const results = await Promise.allSettled([client.getChainId(), client.getBlockNumber({ cacheTime: 0 })])
    expect(results.map((result) => result.status)).toEqual(['rejected', 'rejected'])
    expect(String((results[0] as PromiseRejectedResult).reason)).toContain('503')
    expect(rpc.requests()).toBe(1)
  })
})
