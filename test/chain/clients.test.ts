import { parseEther } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterEach, describe, expect, it } from 'vitest'
import { createChainClients, defineRpcChain } from '../../src/chain/clients.js'
import { chainWithoutRouter, chainWithRouter } from '../helpers/localChains.js'
import { fundedWallet } from './fixtures.js'
import { countingProxy, failingRpc, type RpcServer } from './rpcServers.js'

const servers: RpcServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

describe('defineRpcChain', () => {
  it('defines any chain id with its RPC URL', () => {
    const chain = defineRpcChain({ chainId: 777_001, rpcUrl: 'http://127.0.0.1:1' })
    expect(chain).toMatchObject({
      id: 777_001,
      name: 'Chain 777001',
      nativeCurrency: { decimals: 18 },
      rpcUrls: { default: { http: ['http://127.0.0.1:1'] } },
    })
  })

  it.each([0, -1, 1.5, Number.NaN])('refuses chain id %s', (chainId) => {
    expect(() => defineRpcChain({ chainId, rpcUrl: 'http://127.0.0.1:1' })).toThrow(/positive integer/)
  })
})

describe.each([
  ['with platform router', chainWithRouter],
  ['without router', chainWithoutRouter],
])('createChainClients on the chain %s', (_label, chainOf) => {
  const chain = chainOf()

  it('reads the chain through the public client; no wallet client without an account', async () => {
    const clients = createChainClients({ chainId: chain.chainId, rpcUrl: chain.rpcUrl })
    expect(clients.chain.id).toBe(chain.chainId)
    expect(clients.walletClient).toBeUndefined()
    expect(await clients.publicClient.getChainId()).toBe(chain.chainId)
    expect(await clients.publicClient.getBytecode({ address: chain.executorAddress })).toMatch(
      /^0x[0-9a-f]{100,}/,
    )
  })

  it('signs and sends as the account through the wallet client', async () => {
    const wallet = await fundedWallet(chain)
    const { publicClient, walletClient } = createChainClients({
      chainId: chain.chainId,
      rpcUrl: chain.rpcUrl,
      account: privateKeyToAccount(wallet.privateKey),
    })
    expect(walletClient.account.address).toBe(wallet.account.address)
    const request = await walletClient.prepareTransactionRequest({ to: wallet.account.address, value: 1n })
    const serializedTransaction = await walletClient.signTransaction(request)
    const hash = await walletClient.sendRawTransaction({ serializedTransaction })
    const receipt = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
    expect(receipt).toMatchObject({ status: 'success', from: wallet.account.address.toLowerCase() })
    // The same signed transaction broadcast again is the same transaction, never a second one.
    await walletClient.sendRawTransaction({ serializedTransaction }).catch(() => undefined)
    expect(await publicClient.getTransactionCount({ address: wallet.account.address })).toBe(1)
  })

  it('keeps HTTP connections alive: 20 sequential reads over a few sockets, not 20', async () => {
    const proxy = await countingProxy(chain.rpcUrl)
    servers.push(proxy)
    const { publicClient } = createChainClients({ chainId: chain.chainId, rpcUrl: proxy.url })
    for (let i = 0; i < 20; i++) await publicClient.getBlockNumber({ cacheTime: 0 })
    expect(proxy.methods.filter((method) => method === 'eth_blockNumber')).toHaveLength(20)
    // undici may open a second socket while the first is being released to its pool.
    expect(proxy.connections()).toBeGreaterThanOrEqual(1)
    expect(proxy.connections()).toBeLessThanOrEqual(3)
  })
})

describe('createChainClients read queue', () => {
  it('keeps at most maxConcurrentReads requests in flight; the others wait their turn', async () => {
    const chain = chainWithRouter()
    const proxy = await countingProxy(chain.rpcUrl)
    servers.push(proxy)
    const { publicClient } = createChainClients({
      chainId: chain.chainId,
      rpcUrl: proxy.url,
      maxConcurrentReads: 2,
    })
    const balances = await Promise.all(
      Array.from({ length: 12 }, () => publicClient.getBalance({ address: chain.payerAddress })),
    )
    expect(new Set(balances).size).toBe(1)
    expect(proxy.methods.filter((method) => method === 'eth_getBalance')).toHaveLength(12)
    expect(proxy.peakInFlight()).toBeLessThanOrEqual(2)
    expect(() => createChainClients({ chainId: 1, rpcUrl: proxy.url, maxConcurrentReads: 0 })).toThrow(
      'maxConcurrentReads 0 must be a whole number >= 1',
    )
  })
})

describe('createChainClients retries', () => {
  it('never retries a send; retries reads readRetryCount times', async () => {
    const rpc = await failingRpc()
    servers.push(rpc)
    const account = privateKeyToAccount(generatePrivateKey())
    const { publicClient, walletClient } = createChainClients({
      chainId: 31_337,
      rpcUrl: rpc.url,
      account,
      readRetryCount: 2,
      readRetryDelayMs: 1,
    })
    const serializedTransaction = await account.signTransaction({
      chainId: 31_337,
      to: account.address,
      value: parseEther('1'),
      nonce: 0,
      gas: 21_000n,
      maxFeePerGas: 1_000_000_000n,
      maxPriorityFeePerGas: 1n,
    })
    await expect(walletClient.sendRawTransaction({ serializedTransaction })).rejects.toThrow()
    expect(rpc.methods).toEqual(['eth_sendRawTransaction'])

    rpc.methods.length = 0
    await expect(walletClient.request({ method: 'eth_chainId' })).rejects.toThrow()
    expect(rpc.methods).toEqual(['eth_chainId'])

    rpc.methods.length = 0
    await expect(publicClient.getBlockNumber({ cacheTime: 0 })).rejects.toThrow()
    expect(rpc.methods).toEqual(['eth_blockNumber', 'eth_blockNumber', 'eth_blockNumber'])
  })
})
