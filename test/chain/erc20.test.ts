import type { LocalChain } from '@stockroute/sandbox/localChains.js'
import { decodeFunctionData, erc20Abi, parseUnits } from 'viem'
import { afterEach, describe, expect, it } from 'vitest'
import { createAllowanceLayouts } from '../../src/chain/allowanceSlot.js'
import { createChainClients } from '../../src/chain/clients.js'
import {
  buildApproveRequest,
  needsZeroAllowanceFirst,
  readAllowance,
  readBalance,
  readDecimals,
} from '../../src/chain/erc20.js'
import { createResetFirstTokens } from '../../src/chain/resetFirstTokens.js'
import { chainWithoutRouter, chainWithRouter, tokenOf } from '../helpers/localChains.js'
import { approve, fundedWallet, publicClientOf } from './fixtures.js'
import { countingProxy, type RpcServer } from './rpcServers.js'

const servers: RpcServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

function assetOf(chain: LocalChain, symbol: string) {
  const asset = chain.assets.find((candidate) => candidate.symbol === symbol)
  if (!asset) throw new Error(`no ${symbol} on chain ${chain.chainId}`)
  return asset
}

describe.each([
  ['with platform router, 6-decimal asset', chainWithRouter],
  ['without router, 18-decimal asset', chainWithoutRouter],
])('ERC-20 helpers on the chain %s', (_label, chainOf) => {
  const chain = chainOf()
  const client = () => publicClientOf(chain)

  it('reads balances, allowances and decimals in base units', async () => {
    const wallet = await fundedWallet(chain, { asset: '1234.5', tokens: { AAPL: 7n } })
    const owner = wallet.account.address
    const asset = chain.defaultAsset
    expect(await readBalance(client(), { token: asset.address, owner })).toBe(
      parseUnits('1234.5', asset.decimals),
    )
    expect(await readBalance(client(), { token: tokenOf(chain, 'AAPL'), owner })).toBe(7n)
    expect(await readDecimals(client(), asset.address)).toBe(asset.decimals)
    expect(await readDecimals(client(), tokenOf(chain, 'AAPL'))).toBe(0)
    expect(await readDecimals(client(), tokenOf(chain, 'AAPLs'))).toBe(18)
    const spender = chain.executorAddress
    expect(await readAllowance(client(), { token: asset.address, owner, spender })).toBe(0n)
    await approve(wallet, asset.address, spender, 42n)
    expect(await readAllowance(client(), { token: asset.address, owner, spender })).toBe(42n)
  })

  it('reads decimals once per token', async () => {
    const proxy = await countingProxy(chain.rpcUrl)
    servers.push(proxy)
    const { publicClient } = createChainClients({ chainId: chain.chainId, rpcUrl: proxy.url })
    const token = chain.defaultAsset.address
    expect(await Promise.all([readDecimals(publicClient, token), readDecimals(publicClient, token)])).toEqual(
      [chain.defaultAsset.decimals, chain.defaultAsset.decimals],
    )
    expect(await readDecimals(publicClient, token)).toBe(chain.defaultAsset.decimals)
    expect(proxy.methods.filter((method) => method === 'eth_call')).toHaveLength(1)
  })

  it('buildApproveRequest encodes approve(spender, amount) to the token, and it works when sent', async () => {
    const wallet = await fundedWallet(chain)
    const token = chain.defaultAsset.address
    const request = buildApproveRequest({ token, spender: chain.executorAddress, amount: 1_500_000n })
    expect(request).toMatchObject({ to: token, token, spender: chain.executorAddress, amount: 1_500_000n })
    expect(decodeFunctionData({ abi: erc20Abi, data: request.data })).toEqual({
      functionName: 'approve',
      args: [chain.executorAddress, 1_500_000n],
    })
    const hash = await wallet.walletClient.sendTransaction({ to: request.to, data: request.data })
    await wallet.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
    expect(
      await readAllowance(client(), { token, owner: wallet.account.address, spender: chain.executorAddress }),
    ).toBe(1_500_000n)
    expect(() => buildApproveRequest({ token, spender: chain.executorAddress, amount: -1n })).toThrow(
      /uint256/,
    )
    expect(() => buildApproveRequest({ token, spender: chain.executorAddress, amount: 2n ** 256n })).toThrow(
      /uint256/,
    )
  })

  it('needsZeroAllowanceFirst: true for USDT (AllowanceNotZero), and the reset then works', async () => {
    const wallet = await fundedWallet(chain)
    const owner = wallet.account.address
    const spender = chain.executorAddress
    const usdt = assetOf(chain, 'USDT')
    expect(usdt.zeroAllowanceFirst).toBe(true)
    await approve(wallet, usdt.address, spender, 1n)
    expect(
      await needsZeroAllowanceFirst(client(), { token: usdt.address, owner, spender, amount: 2n }),
    ).toEqual({
      needed: true,
      reason: 'approve-reverts',
      currentAllowance: 1n,
      revert: {
        errorName: 'AllowanceNotZero',
        message: `reverted with AllowanceNotZero(${owner}, ${spender}, 1)`,
      },
    })
    // The detection is right: a direct change reverts on chain, zero first then the amount works.
    const change = buildApproveRequest({ token: usdt.address, spender, amount: 2n })
    const direct = await wallet.walletClient.sendTransaction({
      to: change.to,
      data: change.data,
      gas: 100_000n,
    })
    expect(
      (await wallet.publicClient.waitForTransactionReceipt({ hash: direct, pollingInterval: 50 })).status,
    ).toBe('reverted')
    await approve(wallet, usdt.address, spender, 0n)
    await approve(wallet, usdt.address, spender, 2n)
    expect(await readAllowance(client(), { token: usdt.address, owner, spender })).toBe(2n)
  })

  it('needsZeroAllowanceFirst: false for USDC, whose allowance changes directly', async () => {
    const wallet = await fundedWallet(chain)
    const owner = wallet.account.address
    const spender = chain.executorAddress
    const usdc = assetOf(chain, 'USDC')
    expect(usdc.zeroAllowanceFirst).toBe(false)
    await approve(wallet, usdc.address, spender, 1n)
    expect(
      await needsZeroAllowanceFirst(client(), { token: usdc.address, owner, spender, amount: 2n }),
    ).toEqual({
      needed: false,
      reason: 'approve-succeeds',
      currentAllowance: 1n,
    })
  })

  it('needsZeroAllowanceFirst: never when the allowance is zero, the new amount is zero, or unchanged', async () => {
    const wallet = await fundedWallet(chain)
    const owner = wallet.account.address
    const spender = chain.executorAddress
    const usdt = assetOf(chain, 'USDT')
    const ask = (amount: bigint) =>
      needsZeroAllowanceFirst(client(), { token: usdt.address, owner, spender, amount })
    expect(await ask(5n)).toEqual({ needed: false, reason: 'allowance-is-zero', currentAllowance: 0n })
    await approve(wallet, usdt.address, spender, 5n)
    expect(await ask(0n)).toEqual({ needed: false, reason: 'new-amount-is-zero', currentAllowance: 5n })
    expect(await ask(5n)).toEqual({ needed: false, reason: 'allowance-unchanged', currentAllowance: 5n })
  })
  it('tells a reset-first token from an ordinary one while the allowance is zero (once per token)', async () => {
    const wallet = await fundedWallet(chain)
    const owner = wallet.account.address
    const spender = chain.executorAddress
    const resets = createResetFirstTokens(client(), createAllowanceLayouts(client()))
    expect(await readAllowance(client(), { token: assetOf(chain, 'USDT').address, owner, spender })).toBe(0n)
    expect(await resets.isResetFirst(assetOf(chain, 'USDT').address, owner, spender)).toBe(true)
    expect(await resets.isResetFirst(assetOf(chain, 'USDC').address, owner, spender)).toBe(false)
    // The stock token (OpenZeppelin's ERC-20) changes any allowance directly.
    expect(await resets.isResetFirst(tokenOf(chain, 'AAPL'), owner, spender)).toBe(false)
  })
})
