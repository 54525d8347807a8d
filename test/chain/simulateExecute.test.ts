import type { LocalChain } from '@stockroute/sandbox/localChains.js'
import type { Address, Hex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterEach, describe, expect, it } from 'vitest'
import { allowanceSlotOf, findAllowanceLayout } from '../../src/chain/allowanceSlot.js'
import { createChainClients } from '../../src/chain/clients.js'
import { readAllowance } from '../../src/chain/erc20.js'
import { ChainInputError, ChainRpcError } from '../../src/chain/errors.js'
import { simulateExecute } from '../../src/chain/simulateExecute.js'
import { chainWithoutRouter, chainWithRouter, signForChain, tokenOf } from '../helpers/localChains.js'
import { approve, buyQuote, execute, fundedWallet, publicClientOf } from './fixtures.js'
import { countingProxy, failingRpc, type RpcServer, refusingProxy } from './rpcServers.js'

const servers: RpcServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

/** The slot of `owner`'s allowance to the chain's executor in `token`, found on the chain. */
async function allowanceSlot(chain: LocalChain, token: Address, owner: Address): Promise<Hex> {
  const spender = chain.executorAddress
  const layout = await findAllowanceLayout(publicClientOf(chain), { token, owner, spender })
  if (!layout) throw new Error(`no allowance layout found for token ${token}`)
  return allowanceSlotOf(layout, owner, spender)
}

describe.each([
  ['with platform router', chainWithRouter],
  ['without router', chainWithoutRouter],
])('simulateExecute on the chain %s', (_label, chainOf) => {
  const chain = chainOf()
  const client = () => publicClientOf(chain)
  const executor = chain.executorAddress
  /** A funded taker, a signed buy quote for it, and the override giving it the quote's allowance. */
  const buyWithAllowanceSlot = async () => {
    const wallet = await fundedWallet(chain, { asset: '500' })
    const taker = wallet.account.address
    const quote = buyQuote(chain)
    const signature = await signForChain(chain, quote)
    const allowance = {
      token: quote.assetToken,
      slot: await allowanceSlot(chain, quote.assetToken, taker),
      amount: quote.amountIn,
    }
    return { taker, quote, signature, allowance }
  }

  it('ok with the gas of a good quote after the approval; the real execute then fits in it', async () => {
    const wallet = await fundedWallet(chain, { asset: '500' })
    const taker = wallet.account.address
    const quote = buyQuote(chain)
    const signature = await signForChain(chain, quote)
    const before = await simulateExecute(client(), { executor, quote, signature, taker })
    expect(before).toMatchObject({
      ok: false,
      errorName: 'ERC20InsufficientAllowance',
      args: [executor, 0n, quote.amountIn - quote.feeAmount],
    })
    await approve(wallet, quote.assetToken, executor, quote.amountIn)
    const result = await simulateExecute(client(), { executor, quote, signature, taker })
    expect(result).toEqual({ ok: true, gas: expect.any(BigInt) })
    if (!result.ok) return
    expect(result.gas).toBeGreaterThan(50_000n)
    const receipt = await execute(chain, wallet, quote, signature)
    expect(receipt.gasUsed).toBeLessThanOrEqual(result.gas)
  })

  it('ok for a sell once the stock is approved', async () => {
    const wallet = await fundedWallet(chain, { tokens: { MSFT: 3n } })
    const taker = wallet.account.address
    const stockToken = tokenOf(chain, 'MSFT')
    const quote = buyQuote(chain, { stockToken, isBuy: false, amountIn: 2n, amountOut: 700n, feeAmount: 3n })
    const signature = await signForChain(chain, quote)
    expect(await simulateExecute(client(), { executor, quote, signature, taker })).toMatchObject({
      ok: false,
      errorName: 'ERC20InsufficientAllowance',
    })
    await approve(wallet, stockToken, executor, 2n)
    expect(await simulateExecute(client(), { executor, quote, signature, taker })).toMatchObject({ ok: true })
  })

  it('QuoteExpired, with the quote id, expiry and block time', async () => {
    const wallet = await fundedWallet(chain, { asset: '500' })
    const quote = buyQuote(chain, { expiresAt: BigInt(Math.floor(Date.now() / 1000) - 30) })
    await approve(wallet, quote.assetToken, executor, quote.amountIn)
    const result = await simulateExecute(client(), {
      executor,
      quote,
      signature: await signForChain(chain, quote),
      taker: wallet.account.address,
    })
    expect(result).toMatchObject({ ok: false, errorName: 'QuoteExpired' })
    if (result.ok) return
    const [quoteId, expiresAt, blockTimestamp] = result.args as [string, bigint, bigint]
    expect(quoteId).toBe(quote.quoteId)
    expect(expiresAt).toBe(quote.expiresAt)
    expect(blockTimestamp).toBeGreaterThan(quote.expiresAt)
    expect(result.message).toBe(
      `reverted with QuoteExpired(${quote.quoteId}, ${quote.expiresAt}, ${blockTimestamp})`,
    )
  })

  it('QuoteAlreadyUsed once the quote has been executed', async () => {
    const wallet = await fundedWallet(chain, { asset: '500' })
    const quote = buyQuote(chain)
    const signature = await signForChain(chain, quote)
    await approve(wallet, quote.assetToken, executor, quote.amountIn * 2n)
    await execute(chain, wallet, quote, signature)
    expect(
      await simulateExecute(client(), { executor, quote, signature, taker: wallet.account.address }),
    ).toEqual({
      ok: false,
      errorName: 'QuoteAlreadyUsed',
      args: [quote.quoteId],
      message: `reverted with QuoteAlreadyUsed(${quote.quoteId})`,
    })
  })

  it('InvalidSigner, with the recovered and the expected signer', async () => {
    const wallet = await fundedWallet(chain, { asset: '500' })
    const quote = buyQuote(chain)
    const otherKey = generatePrivateKey()
    await approve(wallet, quote.assetToken, executor, quote.amountIn)
    expect(
      await simulateExecute(client(), {
        executor,
        quote,
        signature: await signForChain(chain, quote, otherKey),
        taker: wallet.account.address,
      }),
    ).toMatchObject({
      ok: false,
      errorName: 'InvalidSigner',
      args: [privateKeyToAccount(otherKey).address, chain.operatorAddress],
    })
  })

  it('InvalidAmount and ERC20InsufficientBalance', async () => {
    const wallet = await fundedWallet(chain)
    const taker = wallet.account.address
    const zero = buyQuote(chain, { amountOut: 0n })
    expect(
      await simulateExecute(client(), {
        executor,
        quote: zero,
        signature: await signForChain(chain, zero),
        taker,
      }),
    ).toMatchObject({ ok: false, errorName: 'InvalidAmount', args: [zero.quoteId] })
    const quote = buyQuote(chain)
    await approve(wallet, quote.assetToken, executor, quote.amountIn)
    expect(
      await simulateExecute(client(), {
        executor,
        quote,
        signature: await signForChain(chain, quote),
        taker,
      }),
    ).toMatchObject({
      ok: false,
      errorName: 'ERC20InsufficientBalance',
      args: [taker, 0n, quote.amountIn - quote.feeAmount],
    })
  })

  it("a buy with no allowance on chain is ok with the allowance override; its gas is the real execute's", async () => {
    const wallet = await fundedWallet(chain, { asset: '500' })
    const taker = wallet.account.address
    const quote = buyQuote(chain)
    const signature = await signForChain(chain, quote)
    const token = quote.assetToken
    expect(await readAllowance(client(), { token, owner: taker, spender: executor })).toBe(0n)
    const allowance = { token, slot: await allowanceSlot(chain, token, taker), amount: quote.amountIn }
    const overridden = await simulateExecute(client(), { executor, quote, signature, taker, allowance })
    expect(overridden).toEqual({ ok: true, gas: expect.any(BigInt) })
    if (!overridden.ok) return
    expect(await readAllowance(client(), { token, owner: taker, spender: executor })).toBe(0n)
    await approve(wallet, token, executor, quote.amountIn)
    // After the real approval, the plain simulation sees the same state as the overridden one did.
    expect(await simulateExecute(client(), { executor, quote, signature, taker })).toEqual(overridden)
    const receipt = await execute(chain, wallet, quote, signature)
    expect(receipt.gasUsed).toBeGreaterThan(50_000n)
    expect(receipt.gasUsed).toBeLessThanOrEqual(overridden.gas)
  })

  it('a buy with an allowance override too small reverts ERC20InsufficientAllowance with it', async () => {
    const wallet = await fundedWallet(chain, { asset: '500' })
    const taker = wallet.account.address
    const quote = buyQuote(chain)
    const needed = quote.amountIn - quote.feeAmount
    const allowance = {
      token: quote.assetToken,
      slot: await allowanceSlot(chain, quote.assetToken, taker),
      amount: needed - 1n,
    }
    const signature = await signForChain(chain, quote)
    expect(await simulateExecute(client(), { executor, quote, signature, taker, allowance })).toEqual({
      ok: false,
      errorName: 'ERC20InsufficientAllowance',
      args: [executor, needed - 1n, needed],
      message: `reverted with ERC20InsufficientAllowance(${executor}, ${needed - 1n}, ${needed})`,
    })
  })

  it('a sell with no allowance on chain is ok with an override of the stock amount, not with one less', async () => {
    const wallet = await fundedWallet(chain, { tokens: { MSFT: 3n } })
    const taker = wallet.account.address
    const stockToken = tokenOf(chain, 'MSFT')
    const quote = buyQuote(chain, { stockToken, isBuy: false, amountIn: 2n, amountOut: 700n, feeAmount: 3n })
    const signature = await signForChain(chain, quote)
    const slot = await allowanceSlot(chain, stockToken, taker)
    const simulate = (amount: bigint, blockTag: 'latest' | 'pending') =>
      simulateExecute(client(), {
        executor,
        quote,
        signature,
        taker,
        blockTag,
        allowance: { token: stockToken, slot, amount },
      })
    expect(await simulate(1n, 'latest')).toMatchObject({
      ok: false,
      errorName: 'ERC20InsufficientAllowance',
      args: [executor, 1n, 2n],
    })
    const pending = await simulate(2n, 'pending')
    expect(pending).toEqual({ ok: true, gas: expect.any(BigInt) })
    expect(await simulate(2n, 'latest')).toEqual(pending)
    if (!pending.ok) return
    await approve(wallet, stockToken, executor, 2n)
    const receipt = await execute(chain, wallet, quote, signature)
    expect(receipt.gasUsed).toBeLessThanOrEqual(pending.gas)
  })

  it('one simulation is exactly one RPC request (eth_simulateV1), ok or reverted, with or without override', async () => {
    const proxy = await countingProxy(chain.rpcUrl)
    servers.push(proxy)
    const { publicClient } = createChainClients({
      chainId: chain.chainId,
      rpcUrl: proxy.url,
      readRetryCount: 0,
    })
    const { taker, quote, signature, allowance } = await buyWithAllowanceSlot()
    const runs = [
      { parameters: { executor, quote, signature, taker }, ok: false },
      { parameters: { executor, quote, signature, taker, allowance }, ok: true },
      {
        parameters: { executor, quote, signature, taker, allowance, blockTag: 'pending' as const },
        ok: true,
      },
    ]
    for (const { parameters, ok } of runs) {
      proxy.methods.length = 0
      expect(await simulateExecute(publicClient, parameters)).toMatchObject({ ok })
      expect(proxy.methods).toEqual(['eth_simulateV1'])
    }
  })

  it('falls back to eth_estimateGas, for good, on a node without eth_simulateV1: same verdicts, and its gas covers the estimate', async () => {
    // FAULT (named mock): refusingProxy answers eth_simulateV1 with "method not found".
    const proxy = await refusingProxy(chain.rpcUrl, ['eth_simulateV1'])
    servers.push(proxy)
    const withoutV1 = createChainClients({ chainId: chain.chainId, rpcUrl: proxy.url, readRetryCount: 0 })
    const { taker, quote, signature, allowance } = await buyWithAllowanceSlot()
    const refused = await simulateExecute(withoutV1.publicClient, { executor, quote, signature, taker })
    expect(proxy.methods).toEqual(['eth_simulateV1', 'eth_estimateGas'])
    expect(refused).toEqual(await simulateExecute(client(), { executor, quote, signature, taker }))
    expect(refused).toMatchObject({ ok: false, errorName: 'ERC20InsufficientAllowance' })

    proxy.methods.length = 0
    const estimated = await simulateExecute(withoutV1.publicClient, {
      executor,
      quote,
      signature,
      taker,
      allowance,
    })
    expect(proxy.methods).toEqual(['eth_estimateGas'])
    const simulated = await simulateExecute(client(), { executor, quote, signature, taker, allowance })
    if (!estimated.ok || !simulated.ok) throw new Error('both simulations should pass with the allowance')
    // eth_simulateV1's figure allows for the largest refund: never under the search's minimum.
    expect(simulated.gas).toBeGreaterThanOrEqual(estimated.gas)
  })

  it('refuses an allowance amount outside uint256 before asking the chain', async () => {
    const quote = buyQuote(chain)
    const error = await simulateExecute(client(), {
      executor,
      quote,
      signature: await signForChain(chain, quote),
      taker: chain.payerAddress,
      allowance: { token: quote.assetToken, slot: `0x${'00'.repeat(32)}`, amount: 2n ** 256n },
    }).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(ChainInputError)
    expect((error as ChainInputError).details).toMatchObject({ parameter: 'allowance.amount' })
  })
})

describe('simulateExecute when the chain cannot be asked', () => {
  it('throws ChainRpcError (not a verdict)', async () => {
    const chain = chainWithRouter()
    const rpc = await failingRpc()
    servers.push(rpc)
    const { publicClient } = createChainClients({
      chainId: chain.chainId,
      rpcUrl: rpc.url,
      readRetryCount: 0,
    })
    const quote = buyQuote(chain)
    const error = await simulateExecute(publicClient, {
      executor: chain.executorAddress,
      quote,
      signature: await signForChain(chain, quote),
      taker: chain.payerAddress,
    }).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(ChainRpcError)
    expect((error as ChainRpcError).shortMessage).toMatch(/^simulation of execute\(quote 0x[0-9a-f]{64}\)/)
    expect((error as ChainRpcError).shortMessage).not.toContain(rpc.url)
  })
})
