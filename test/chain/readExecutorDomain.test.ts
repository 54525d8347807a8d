import { zeroHash } from 'viem'
import { afterEach, describe, expect, it } from 'vitest'
import { createChainClients } from '../../src/chain/clients.js'
import { ChainRpcError } from '../../src/chain/errors.js'
import { readExecutorDomain } from '../../src/chain/readExecutorDomain.js'
import { chainWithoutRouter, chainWithRouter } from '../helpers/localChains.js'
import { publicClientOf } from './fixtures.js'
import { countingProxy, type RpcServer } from './rpcServers.js'

const servers: RpcServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

describe('readExecutorDomain', () => {
  it("reads the router's domain on the chain with a router, the settlement's on the other", async () => {
    const withRouter = chainWithRouter()
    const withoutRouter = chainWithoutRouter()
    expect(await readExecutorDomain(publicClientOf(withRouter), withRouter.executorAddress)).toEqual({
      fields: '0x0f',
      name: 'PlatformRouter',
      version: '1',
      chainId: withRouter.chainId,
      verifyingContract: withRouter.executorAddress,
      salt: zeroHash,
      extensions: [],
    })
    expect(await readExecutorDomain(publicClientOf(withoutRouter), withoutRouter.executorAddress)).toEqual({
      fields: '0x0f',
      name: 'RFQSettlement',
      version: '1',
      chainId: withoutRouter.chainId,
      verifyingContract: withoutRouter.settlementAddress,
      salt: zeroHash,
      extensions: [],
    })
    const settlement = await readExecutorDomain(publicClientOf(withRouter), withRouter.settlementAddress)
    expect(settlement).toMatchObject({
      name: 'RFQSettlement',
      verifyingContract: withRouter.settlementAddress,
    })
  })

  it('reads once per client and executor, whatever the address case', async () => {
    const chain = chainWithRouter()
    const proxy = await countingProxy(chain.rpcUrl)
    servers.push(proxy)
    const { publicClient } = createChainClients({ chainId: chain.chainId, rpcUrl: proxy.url })
    const [first, second] = await Promise.all([
      readExecutorDomain(publicClient, chain.executorAddress),
      readExecutorDomain(publicClient, chain.executorAddress.toLowerCase() as `0x${string}`),
    ])
    const third = await readExecutorDomain(publicClient, chain.executorAddress)
    expect(second).toBe(first)
    expect(third).toBe(first)
    expect(proxy.methods.filter((method) => method === 'eth_call')).toHaveLength(1)
    await readExecutorDomain(publicClient, chain.settlementAddress)
    expect(proxy.methods.filter((method) => method === 'eth_call')).toHaveLength(2)
  })

  it('a contract without eip712Domain is a ChainRpcError, and the failure is not cached', async () => {
    const chain = chainWithRouter()
    const proxy = await countingProxy(chain.rpcUrl)
    servers.push(proxy)
    const { publicClient } = createChainClients({
      chainId: chain.chainId,
      rpcUrl: proxy.url,
      readRetryCount: 0,
    })
    const asset = chain.defaultAsset.address
    const error = await readExecutorDomain(publicClient, asset).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(ChainRpcError)
    expect((error as ChainRpcError).code).toBe('CHAIN_RPC_FAILED')
    expect((error as ChainRpcError).shortMessage).toContain(`eip712Domain() of executor ${asset}`)
    expect((error as ChainRpcError).details).toMatchObject({ chainId: chain.chainId })
    await expect(readExecutorDomain(publicClient, asset)).rejects.toBeInstanceOf(ChainRpcError)
    expect(proxy.methods.filter((method) => method === 'eth_call')).toHaveLength(2)
  })

  it('stops with its AbortSignal', async () => {
    const chain = chainWithoutRouter()
    const controller = new AbortController()
    controller.abort(new Error('stop now'))
    await expect(
      readExecutorDomain(publicClientOf(chain), chain.executorAddress, { signal: controller.signal }),
    ).rejects.toThrow('stop now')
  })
})
