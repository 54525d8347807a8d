import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterEach, describe, expect, it } from 'vitest'
import { createChainClients } from '../../src/chain/clients.js'
import { ChainRpcError } from '../../src/chain/errors.js'
import { simulateExecute } from '../../src/chain/simulateExecute.js'
import { chainWithoutRouter, chainWithRouter, signForChain, tokenOf } from '../helpers/localChains.js'
import { approve, buyQuote, execute, fundedWallet, publicClientOf } from './fixtures.js'
import { failingRpc, type RpcServer } from './rpcServers.js'

const servers: RpcServer[] = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

describe.each([
  ['with platform router', chainWithRouter],
  ['without router', chainWithoutRouter],
])('simulateExecute on the chain %s', (_label, chainOf) => {
  const chain = chainOf()
  const client = () => publicClientOf(chain)
  const executor = chain.executorAddress

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
