import type { LocalChain } from '@stockroute/sandbox/localChains.js'
import { type RpcFaultProxy, startRpcFaultProxy } from '@stockroute/sandbox/rpcFaultProxy.js'
import { type Address, erc20Abi, type Hex, toHex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { readContract } from 'viem/actions'
import { afterEach, describe, expect, it } from 'vitest'
import {
  type AllowanceLayout,
  allowanceSlotOf,
  createAllowanceLayouts,
  findAllowanceLayout,
} from '../../src/chain/allowanceSlot.js'
import { createChainClients } from '../../src/chain/clients.js'
import { ChainRpcError } from '../../src/chain/errors.js'
import { chainWithoutRouter, chainWithRouter, clientsFor } from '../helpers/localChains.js'
import { approve, fundedWallet, publicClientOf } from './fixtures.js'
import { countingProxy, type RpcServer, refusingProxy } from './rpcServers.js'

const servers: RpcServer[] = []
const faultProxies: RpcFaultProxy[] = []
afterEach(async () => {
  await Promise.all([
    ...servers.splice(0).map((server) => server.close()),
    ...faultProxies.splice(0).map((proxy) => proxy.stop()),
  ])
})

/** OpenZeppelin ERC20 v5: `_balances` at slot 0, `_allowances` at slot 1. */
const openZeppelinLayout: AllowanceLayout = { kind: 'solidity', mappingSlot: 1n }

/**
 * Runtime code of a token-like contract that keeps allowances the way Vyper lays out
 * `HashMap[address, HashMap[address, uint256]]` declared at slot 3: any call returns
 * sload(keccak256(keccak256(3 . owner) . spender)) for the two address words after the selector.
 */
const vyperLayoutAllowanceCode: Hex =
  '0x6003600052600435602052604060002060005260243560205260406000205460005260206000f3'

function randomAddress(): Address {
  return privateKeyToAccount(generatePrivateKey()).address
}

/** stockroute's client for `chain` through a loopback counting proxy (a real count of requests). */
async function countedClient(chain: LocalChain) {
  const proxy = await countingProxy(chain.rpcUrl)
  servers.push(proxy)
  const { publicClient } = createChainClients({
    chainId: chain.chainId,
    rpcUrl: proxy.url,
    readRetryCount: 0,
  })
  return { client: publicClient, methods: proxy.methods }
}

function allowanceWithOverride(
  chain: LocalChain,
  token: Address,
  owner: Address,
  spender: Address,
  slot: Hex,
) {
  return (value: bigint) =>
    readContract(publicClientOf(chain), {
      address: token,
      abi: erc20Abi,
      functionName: 'allowance',
      args: [owner, spender],
      stateOverride: [{ address: token, stateDiff: [{ slot, value: toHex(value, { size: 32 }) }] }],
    })
}

describe.each([
  ['with platform router, 6-decimal asset', chainWithRouter],
  ['without router, 18-decimal asset', chainWithoutRouter],
])('allowance storage layouts on the chain %s', (_label, chainOf) => {
  const chain = chainOf()
  const executor = chain.executorAddress

  it('finds the layout of every asset, stock and share token with one access list and one probe', async () => {
    const stock = chain.tokens.find((token) => token.kind === 'stock')
    const share = chain.tokens.find((token) => token.kind === 'share')
    if (!stock || !share) throw new Error(`chain ${chain.chainId} lists no stock or no share token`)
    const tokens = [...chain.assets.map((asset) => asset.address), stock.address, share.address]
    const owner = randomAddress()
    for (const token of tokens) {
      const { client, methods } = await countedClient(chain)
      expect(await findAllowanceLayout(client, { token, owner, spender: executor })).toEqual(
        openZeppelinLayout,
      )
      expect(methods).toEqual(['eth_createAccessList', 'eth_call'])
    }
  })

  it('allowanceSlotOf gives the slot a real approve writes and whose override changes allowance()', async () => {
    const wallet = await fundedWallet(chain)
    const owner = wallet.account.address
    const token = chain.defaultAsset.address
    const layout = await findAllowanceLayout(publicClientOf(chain), {
      token,
      owner: randomAddress(),
      spender: randomAddress(),
    })
    if (!layout) throw new Error(`no allowance layout found for ${token}`)
    const slot = allowanceSlotOf(layout, owner, executor)
    const overridden = allowanceWithOverride(chain, token, owner, executor, slot)
    expect(await overridden(123_456n)).toBe(123_456n)
    expect(await overridden(2n ** 256n - 1n)).toBe(2n ** 256n - 1n)
    // Another pair's slot leaves this pair's allowance alone.
    const elsewhere = allowanceSlotOf(layout, owner, randomAddress())
    expect(await allowanceWithOverride(chain, token, owner, executor, elsewhere)(5n)).toBe(0n)
    await approve(wallet, token, executor, 777n)
    expect(BigInt((await publicClientOf(chain).getStorageAt({ address: token, slot })) ?? '0x0')).toBe(777n)
  })

  it('a contract that is not a token (the executor) has no layout, after one request', async () => {
    const { client, methods } = await countedClient(chain)
    expect(
      await findAllowanceLayout(client, { token: executor, owner: randomAddress(), spender: executor }),
    ).toBe(undefined)
    expect(methods).toEqual(['eth_createAccessList'])
  })

  it('an address without code has no layout, after the fallback probes', async () => {
    const { client, methods } = await countedClient(chain)
    const nobody = randomAddress()
    expect(
      await findAllowanceLayout(client, { token: nobody, owner: randomAddress(), spender: executor }),
    ).toBe(undefined)
    expect(methods).toEqual(['eth_createAccessList', ...Array(16).fill('eth_call')])
  })
})

describe('allowance storage layouts beyond the sandbox tokens', () => {
  const chain = chainWithRouter()

  it('finds a Vyper-ordered layout at slot 3 from the access list', async () => {
    const token = randomAddress()
    const { testClient } = clientsFor(chain, chain.roles.deployer.privateKey)
    await testClient.setCode({ address: token, bytecode: vyperLayoutAllowanceCode })
    const { client, methods } = await countedClient(chain)
    const owner = randomAddress()
    const layout = await findAllowanceLayout(client, { token, owner, spender: chain.executorAddress })
    expect(layout).toEqual({ kind: 'vyper', mappingSlot: 3n })
    expect(methods).toEqual(['eth_createAccessList', 'eth_call'])
    if (!layout) return
    const other = randomAddress()
    const slot = allowanceSlotOf(layout, other, owner)
    expect(slot).not.toBe(allowanceSlotOf({ kind: 'solidity', mappingSlot: 3n }, other, owner))
    expect(await allowanceWithOverride(chain, token, other, owner, slot)(42n)).toBe(42n)
  })

  it('without eth_createAccessList, finds the layout by probing solidity slots 0 to 15', async () => {
    const proxy = await refusingProxy(chain.rpcUrl, ['eth_createAccessList'])
    servers.push(proxy)
    const { publicClient } = createChainClients({
      chainId: chain.chainId,
      rpcUrl: proxy.url,
      readRetryCount: 0,
    })
    const layout = await findAllowanceLayout(publicClient, {
      token: chain.defaultAsset.address,
      owner: randomAddress(),
      spender: chain.executorAddress,
    })
    expect(layout).toEqual(openZeppelinLayout)
    // Slot 0 (balances) fails the probe, slot 1 passes.
    expect(proxy.methods).toEqual(['eth_createAccessList', 'eth_call', 'eth_call'])
  })
})

describe('createAllowanceLayouts', () => {
  const chain = chainWithoutRouter()
  const executor = chain.executorAddress

  it('looks each token up once, concurrent callers and undefined included', async () => {
    const { client, methods } = await countedClient(chain)
    const layouts = createAllowanceLayouts(client)
    const asset = chain.defaultAsset.address
    const stock = chain.tokens.find((token) => token.kind === 'stock')?.address
    if (!stock) throw new Error('no stock token')
    const owner = randomAddress()
    const first = await Promise.all([
      layouts.layoutOf(asset, owner, executor),
      layouts.layoutOf(asset.toLowerCase() as Address, owner, executor),
      layouts.layoutOf(asset, randomAddress(), executor),
      layouts.layoutOf(stock, owner, executor),
      layouts.layoutOf(executor, owner, executor),
      layouts.layoutOf(executor, owner, executor),
    ])
    expect(first).toEqual([
      openZeppelinLayout,
      openZeppelinLayout,
      openZeppelinLayout,
      openZeppelinLayout,
      undefined,
      undefined,
    ])
    expect(methods.filter((method) => method === 'eth_createAccessList')).toHaveLength(3)
    expect(methods.filter((method) => method === 'eth_call')).toHaveLength(2)
    const requests = methods.length
    expect(await layouts.layoutOf(asset, randomAddress(), randomAddress())).toEqual(openZeppelinLayout)
    expect(await layouts.layoutOf(stock, owner, executor)).toEqual(openZeppelinLayout)
    expect(await layouts.layoutOf(executor, randomAddress(), executor)).toBe(undefined)
    expect(methods).toHaveLength(requests)
  })

  it('does not remember a transport failure: the next call looks again', async () => {
    const proxy = await startRpcFaultProxy({ upstream: chain.rpcUrl, faults: { errorRate: 1 } })
    faultProxies.push(proxy)
    const { publicClient } = createChainClients({
      chainId: chain.chainId,
      rpcUrl: proxy.url,
      readRetryCount: 0,
    })
    const layouts = createAllowanceLayouts(publicClient)
    const asset = chain.defaultAsset.address
    const error = await layouts.layoutOf(asset, randomAddress(), executor).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(ChainRpcError)
    expect((error as ChainRpcError).shortMessage).toContain(`allowance storage layout of token ${asset}`)
    proxy.setFaults({})
    expect(await layouts.layoutOf(asset, randomAddress(), executor)).toEqual(openZeppelinLayout)
    expect(proxy.stats().byMethod.eth_createAccessList?.requests).toBe(2)
  })

  it("a caller's abort stops its wait, not the shared lookup", async () => {
    const { client, methods } = await countedClient(chain)
    const layouts = createAllowanceLayouts(client)
    const asset = chain.defaultAsset.address
    const controller = new AbortController()
    const aborted = layouts.layoutOf(asset, randomAddress(), executor, { signal: controller.signal })
    const waiting = layouts.layoutOf(asset, randomAddress(), executor)
    controller.abort(new Error('caller gave up'))
    await expect(aborted).rejects.toThrow('caller gave up')
    expect(await waiting).toEqual(openZeppelinLayout)
    expect(methods).toEqual(['eth_createAccessList', 'eth_call'])
  })
})
