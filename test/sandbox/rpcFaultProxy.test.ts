import { type AnvilInstance, startAnvil } from '@stockroute/sandbox/anvil.js'
import {
  type RpcFaultProxy,
  RpcFaultProxyError,
  startRpcFaultProxy,
} from '@stockroute/sandbox/rpcFaultProxy.js'
import {
  createPublicClient,
  createTestClient,
  defineChain,
  type Hex,
  HttpRequestError,
  http,
  keccak256,
  parseEther,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest'
import { localChains } from '../helpers/localChains.js'

// The proxy is the named fault injector of the soak (a node cannot be asked to lose an answer), so
// these tests run it against real anvil: the shared chains for read-only calls, a chain of this
// file's own where transactions are sent.

/** A public client through `url` that never retries: each viem call is exactly one HTTP request. */
function clientOn(url: string, chainId: number) {
  const chain = defineChain({
    id: chainId,
    name: `chain ${chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  })
  return createPublicClient({ chain, transport: http(url, { retryCount: 0, timeout: 10_000 }) })
}

const proxies: RpcFaultProxy[] = []
async function proxyFor(upstream: string, options: Parameters<typeof startRpcFaultProxy>[0] = { upstream }) {
  const proxy = await startRpcFaultProxy({ ...options, upstream })
  proxies.push(proxy)
  return proxy
}
afterEach(async () => {
  await Promise.all(proxies.splice(0).map((proxy) => proxy.stop()))
})

describe('rpcFaultProxy on a shared chain (read-only calls)', () => {
  const shared = () => {
    const chain = localChains()[0]
    if (!chain) throw new Error('no shared chain')
    return chain
  }

  it('passes calls and batches through unchanged while no fault is set', async () => {
    const chain = shared()
    const proxy = await proxyFor(chain.rpcUrl)
    expect(proxy.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/)
    expect(await clientOn(proxy.url, chain.chainId).getChainId()).toBe(chain.chainId)
    const batch = await fetch(proxy.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] },
        { jsonrpc: '2.0', id: 2, method: 'eth_blockNumber', params: [] },
      ]),
    })
    const replies = (await batch.json()) as { id: number; result: string }[]
    expect(replies.map((reply) => reply.id).sort()).toEqual([1, 2])
    expect(replies.find((reply) => reply.id === 1)?.result).toBe(`0x${chain.chainId.toString(16)}`)
    const stats = proxy.stats()
    expect(stats).toMatchObject({ requests: 2, forwarded: 2, delayed: 0, dropped: 0, cut: 0, errored: 0 })
    expect(stats.byMethod.eth_chainId?.requests).toBe(2)
    expect(stats.byMethod.eth_blockNumber?.requests).toBe(1)
  })

  it('delayMs holds a request before forwarding it: a later undelayed request is answered first', async () => {
    const chain = shared()
    // Longer than the test: the delayed request is still held when the proxy stops.
    const proxy = await proxyFor(chain.rpcUrl, { upstream: chain.rpcUrl, faults: { delayMs: 600_000 } })
    const client = clientOn(proxy.url, chain.chainId)
    const order: string[] = []
    const delayed = client.getBlockNumber({ cacheTime: 0 }).then(
      () => order.push('delayed answered'),
      () => order.push('delayed abandoned'),
    )
    await vi.waitFor(() => expect(proxy.stats().delayed).toBe(1))
    proxy.setFaults({})
    // A client of its own: viem shares one client's block number request in flight.
    expect(await clientOn(proxy.url, chain.chainId).getBlockNumber({ cacheTime: 0 })).toBeGreaterThan(0n)
    order.push('undelayed answered')
    // The undelayed one went through the node; the delayed one has not reached it.
    expect(proxy.stats()).toMatchObject({ requests: 2, delayed: 1, forwarded: 1 })
    await proxy.stop()
    await delayed
    expect(order).toEqual(['undelayed answered', 'delayed abandoned'])
    expect(proxy.stats()).toMatchObject({ requests: 2, delayed: 1, forwarded: 1 })
  })

  it('a delayed request is forwarded once its delay has passed', async () => {
    const chain = shared()
    const proxy = await proxyFor(chain.rpcUrl, { upstream: chain.rpcUrl, faults: { delayMs: [20, 40] } })
    expect(await clientOn(proxy.url, chain.chainId).getChainId()).toBe(chain.chainId)
    expect(proxy.stats()).toMatchObject({ requests: 1, delayed: 1, forwarded: 1 })
  })

  it('answers 502 at errorRate, the same requests for the same seed', async () => {
    const chain = shared()
    const outcomes = async (seed: number) => {
      const proxy = await proxyFor(chain.rpcUrl, { upstream: chain.rpcUrl, seed, faults: { errorRate: 0.5 } })
      const client = clientOn(proxy.url, chain.chainId)
      const results: string[] = []
      for (let i = 0; i < 40; i += 1) {
        try {
          await client.getBlockNumber({ cacheTime: 0 })
          results.push('ok')
        } catch (error) {
          expect(error).toBeInstanceOf(HttpRequestError)
          expect((error as HttpRequestError).status).toBe(502)
          results.push('502')
        }
      }
      return { results, stats: proxy.stats() }
    }
    const first = await outcomes(42)
    const failures = first.results.filter((result) => result === '502').length
    expect(failures).toBe(first.stats.errored)
    expect(failures).toBeGreaterThan(8)
    expect(failures).toBeLessThan(32)
    expect(first.stats.forwarded).toBe(40 - failures)
    expect((await outcomes(42)).results).toEqual(first.results)
    expect((await outcomes(43)).results).not.toEqual(first.results)
  })

  it('faults only the listed methods; a batch is faulted when any member is listed', async () => {
    const chain = shared()
    const proxy = await proxyFor(chain.rpcUrl, {
      upstream: chain.rpcUrl,
      faults: { dropRate: 1, methods: ['eth_getBalance'] },
    })
    const client = clientOn(proxy.url, chain.chainId)
    expect(await client.getChainId()).toBe(chain.chainId)
    await expect(client.getBalance({ address: chain.payerAddress })).rejects.toBeInstanceOf(HttpRequestError)
    const post = (body: unknown) =>
      fetch(proxy.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      })
    const call = (id: number, method: string, params: unknown[] = []) => ({
      jsonrpc: '2.0',
      id,
      method,
      params,
    })
    await expect(
      post([call(1, 'eth_chainId'), call(2, 'eth_getBalance', [chain.payerAddress, 'latest'])]),
    ).rejects.toThrow()
    expect((await post([call(3, 'eth_chainId'), call(4, 'eth_blockNumber')])).status).toBe(200)
    const stats = proxy.stats()
    expect(stats).toMatchObject({ requests: 4, eligible: 2, dropped: 2, forwarded: 2 })
    expect(stats.byMethod.eth_getBalance).toMatchObject({ requests: 2, eligible: 2, dropped: 2 })
    // The batch's other member is counted under its method too, as part of a dropped request.
    expect(stats.byMethod.eth_chainId).toMatchObject({ requests: 3, eligible: 1, dropped: 1 })
    expect(stats.byMethod.eth_blockNumber).toMatchObject({ requests: 1, eligible: 0, dropped: 0 })
  })

  it('refuses impossible faults with a clear error and keeps the previous ones', async () => {
    const chain = shared()
    const proxy = await proxyFor(chain.rpcUrl, { upstream: chain.rpcUrl, faults: { errorRate: 1 } })
    expect(() => proxy.setFaults({ dropRate: 0.6, cutRate: 0.6 })).toThrow(/must not exceed 1/)
    expect(() => proxy.setFaults({ errorRate: 2 })).toThrow(RpcFaultProxyError)
    expect(() => proxy.setFaults({ delayMs: [500, 100] })).toThrow(/delayMs/)
    expect(() => proxy.setFaults({ methods: [''] })).toThrow(/methods/)
    expect(proxy.faults()).toEqual({ errorRate: 1 })
    await expect(startRpcFaultProxy({ upstream: 'ws://127.0.0.1:1' })).rejects.toThrow(/http URL/)
  })

  it('answers 502 when the upstream cannot be reached, and stop() closes the port', async () => {
    const proxy = await proxyFor('http://127.0.0.1:1')
    const reply = await fetch(proxy.url, {
      method: 'POST',
      body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId"}',
    })
    expect(reply.status).toBe(502)
    expect(proxy.stats().upstreamErrors).toBe(1)
    await proxy.stop()
    await proxy.stop()
    await expect(fetch(proxy.url, { method: 'POST', body: '{}' })).rejects.toThrow()
  })
})

describe('rpcFaultProxy with transactions (a chain of its own)', () => {
  let anvil: AnvilInstance
  const chainId = 990_301
  beforeAll(async () => {
    anvil = await startAnvil({ chainId })
  })
  afterAll(async () => {
    await anvil?.stop()
  })

  async function signedTransfer() {
    const account = privateKeyToAccount(generatePrivateKey())
    const direct = clientOn(anvil.rpcUrl, chainId)
    const testClient = createTestClient({ mode: 'anvil', transport: http(anvil.rpcUrl) })
    await testClient.setBalance({ address: account.address, value: parseEther('1') })
    const fees = await direct.estimateFeesPerGas()
    const raw = await account.signTransaction({
      chainId,
      type: 'eip1559',
      nonce: 0,
      to: '0x00000000000000000000000000000000000000aa',
      value: 1n,
      gas: 21_000n,
      maxFeePerGas: fees.maxFeePerGas * 2n,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    })
    return { account, direct, raw, hash: keccak256(raw) as Hex }
  }

  it('drop: the call fails and nothing reaches the node', async () => {
    const { account, direct, raw, hash } = await signedTransfer()
    const proxy = await proxyFor(anvil.rpcUrl, { upstream: anvil.rpcUrl, faults: { dropRate: 1 } })
    await expect(
      clientOn(proxy.url, chainId).sendRawTransaction({ serializedTransaction: raw }),
    ).rejects.toBeInstanceOf(HttpRequestError)
    expect(await direct.getTransactionCount({ address: account.address, blockTag: 'pending' })).toBe(0)
    expect(await direct.getTransaction({ hash }).catch(() => null)).toBeNull()
    expect(proxy.stats()).toMatchObject({ requests: 1, dropped: 1, forwarded: 0 })
  })

  it('cut on eth_sendRawTransaction: the call fails, yet the transaction is mined', async () => {
    const { account, direct, raw, hash } = await signedTransfer()
    const proxy = await proxyFor(anvil.rpcUrl, {
      upstream: anvil.rpcUrl,
      faults: { cutRate: 1, methods: ['eth_sendRawTransaction'] },
    })
    const viaProxy = clientOn(proxy.url, chainId)
    // Other methods pass: the filter holds the fault to the one call.
    expect(await viaProxy.getTransactionCount({ address: account.address })).toBe(0)
    await expect(viaProxy.sendRawTransaction({ serializedTransaction: raw })).rejects.toBeInstanceOf(
      HttpRequestError,
    )
    const receipt = await direct.waitForTransactionReceipt({ hash, pollingInterval: 50, timeout: 10_000 })
    expect(receipt.status).toBe('success')
    expect(await direct.getTransactionCount({ address: account.address })).toBe(1)
    const stats = proxy.stats()
    expect(stats).toMatchObject({ requests: 2, cut: 1, forwarded: 2 })
    expect(stats.byMethod.eth_sendRawTransaction).toMatchObject({ requests: 1, cut: 1 })
    expect(stats.byMethod.eth_getTransactionCount).toMatchObject({ requests: 1, cut: 0, eligible: 0 })
  })
  it("withholds the transactions its filter picks: answered with the hash, never on the node; a batch's others pass", async () => {
    const { account, direct, raw, hash } = await signedTransfer()
    const proxy = await proxyFor(anvil.rpcUrl)
    const seen: { hash: Hex; nonce: number }[] = []
    proxy.withholdTransactions((tx) => {
      seen.push({ hash: tx.hash, nonce: tx.nonce })
      return tx.to === '0x00000000000000000000000000000000000000aa'
    })
    expect(await clientOn(proxy.url, chainId).sendRawTransaction({ serializedTransaction: raw })).toBe(hash)
    expect(seen).toEqual([{ hash, nonce: 0 }])
    expect(await direct.getTransaction({ hash }).catch(() => null)).toBeNull()
    // In a batch, the withheld member gets its hash and the others their node's answers, ids kept.
    const batch = await fetch(proxy.url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify([
        { jsonrpc: '2.0', id: 7, method: 'eth_chainId', params: [] },
        { jsonrpc: '2.0', id: 8, method: 'eth_sendRawTransaction', params: [raw] },
      ]),
    }).then((response) => response.json())
    expect(batch).toEqual(
      expect.arrayContaining([
        { jsonrpc: '2.0', id: 7, result: `0x${chainId.toString(16)}` },
        { jsonrpc: '2.0', id: 8, result: hash },
      ]),
    )
    expect(proxy.stats().withheld).toBe(2)
    // Turned off, the same bytes reach the node.
    proxy.withholdTransactions(undefined)
    await clientOn(proxy.url, chainId).sendRawTransaction({ serializedTransaction: raw })
    const receipt = await direct.waitForTransactionReceipt({ hash, pollingInterval: 50, timeout: 10_000 })
    expect(receipt.from.toLowerCase()).toBe(account.address.toLowerCase())
  })
})
