import type { SignedQuoteStruct } from '@stockroute/client/domain/routerQuote.js'
import { rfqSettlementAbi } from '@stockroute/sandbox/contracts/artifacts/index.js'
import type { LocalChain } from '@stockroute/sandbox/localChains.js'
import { type Address, erc20Abi, type Hex, parseEventLogs, parseUnits } from 'viem'
import { generatePrivateKey } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import {
  balanceOf,
  chainWithoutRouter,
  chainWithRouter,
  freshWallet,
  newQuoteId,
  signForChain,
  tokenOf,
} from '../../helpers/localChains.js'
import { expectRevert } from '../../helpers/reverts.js'

type Wallet = Awaited<ReturnType<typeof freshWallet>>

async function latestTimestamp(wallet: Wallet): Promise<bigint> {
  return (await wallet.publicClient.getBlock()).timestamp
}

async function approve(wallet: Wallet, token: Address, spender: Address, amount: bigint) {
  const hash = await wallet.walletClient.writeContract({
    address: token,
    abi: erc20Abi,
    functionName: 'approve',
    args: [spender, amount],
  })
  await wallet.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
}

async function execute(chain: LocalChain, wallet: Wallet, quote: SignedQuoteStruct, signature: Hex) {
  const hash = await wallet.walletClient.writeContract({
    address: chain.executorAddress,
    abi: rfqSettlementAbi,
    functionName: 'execute',
    args: [quote, signature],
  })
  return wallet.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
}

/** Executes through simulation first, so a revert surfaces as a decoded custom error. */
async function simulateExecute(chain: LocalChain, wallet: Wallet, quote: SignedQuoteStruct, signature: Hex) {
  return wallet.publicClient.simulateContract({
    account: wallet.account,
    address: chain.executorAddress,
    abi: rfqSettlementAbi,
    functionName: 'execute',
    args: [quote, signature],
  })
}

/**
 * Balances at one block. The payer and fee recipient are shared with other test files running at
 * the same time, so deltas are read at the execute's block and the block before it: anvil mines
 * one transaction per block, so the difference is this transaction's alone.
 */
async function snapshot<K extends string>(
  chain: LocalChain,
  token: Address,
  owners: Record<K, Address>,
  blockNumber: bigint,
) {
  const entries = await Promise.all(
    (Object.entries(owners) as [K, Address][]).map(async ([name, owner]) => [
      name,
      await balanceOf(chain, token, owner, blockNumber),
    ]),
  )
  return Object.fromEntries(entries) as Record<K, bigint>
}

describe.each([
  ['with platform router, 6-decimal asset', chainWithRouter],
  ['without router, 18-decimal asset', chainWithoutRouter],
])('execute on the chain %s', (_label, chainOf) => {
  const chain = chainOf()
  const asset = chain.defaultAsset

  it('settles a buy with exact balances for taker, payer and fee recipient', async () => {
    const wallet = await freshWallet(chain, { asset: '10000' })
    const aapl = tokenOf(chain, 'AAPL')
    const quote: SignedQuoteStruct = {
      quoteId: newQuoteId(),
      stockToken: aapl,
      assetToken: asset.address,
      isBuy: true,
      amountIn: parseUnits('683.12', asset.decimals),
      amountOut: 3n,
      feeAmount: parseUnits('0.68', asset.decimals),
      expiresAt: (await latestTimestamp(wallet)) + 10n,
    }
    const signature = await signForChain(chain, quote)
    await approve(wallet, asset.address, chain.executorAddress, quote.amountIn)
    const owners = {
      taker: wallet.account.address,
      payer: chain.payerAddress,
      fee: chain.roles.feeRecipient.address,
    }
    const receipt = await execute(chain, wallet, quote, signature)

    expect(receipt.status).toBe('success')
    const assetBefore = await snapshot(chain, asset.address, owners, receipt.blockNumber - 1n)
    const stockBefore = await snapshot(chain, aapl, owners, receipt.blockNumber - 1n)
    const assetAfter = await snapshot(chain, asset.address, owners, receipt.blockNumber)
    const stockAfter = await snapshot(chain, aapl, owners, receipt.blockNumber)
    expect(assetBefore.taker - assetAfter.taker).toBe(quote.amountIn)
    expect(assetAfter.payer - assetBefore.payer).toBe(quote.amountIn - quote.feeAmount)
    expect(assetAfter.fee - assetBefore.fee).toBe(quote.feeAmount)
    expect(stockAfter.taker - stockBefore.taker).toBe(3n)
    expect(stockBefore.payer - stockAfter.payer).toBe(3n)
    const [event] = parseEventLogs({ abi: rfqSettlementAbi, logs: receipt.logs, eventName: 'QuoteExecuted' })
    expect(event?.args).toEqual({
      quoteId: quote.quoteId,
      taker: wallet.account.address,
      stockToken: aapl,
      assetToken: asset.address,
      isBuy: true,
      amountIn: quote.amountIn,
      amountOut: 3n,
      feeAmount: quote.feeAmount,
    })
  })

  it('settles a sell with exact balances for taker, payer and fee recipient', async () => {
    const wallet = await freshWallet(chain, { tokens: { TSLA: 5n } })
    const tsla = tokenOf(chain, 'TSLA')
    const quote: SignedQuoteStruct = {
      quoteId: newQuoteId(),
      stockToken: tsla,
      assetToken: asset.address,
      isBuy: false,
      amountIn: 2n,
      amountOut: parseUnits('502.37', asset.decimals),
      feeAmount: parseUnits('0.51', asset.decimals),
      expiresAt: (await latestTimestamp(wallet)) + 10n,
    }
    const signature = await signForChain(chain, quote)
    await approve(wallet, tsla, chain.executorAddress, 2n)
    const owners = {
      taker: wallet.account.address,
      payer: chain.payerAddress,
      fee: chain.roles.feeRecipient.address,
    }
    const receipt = await execute(chain, wallet, quote, signature)

    expect(receipt.status).toBe('success')
    const assetBefore = await snapshot(chain, asset.address, owners, receipt.blockNumber - 1n)
    const assetAfter = await snapshot(chain, asset.address, owners, receipt.blockNumber)
    expect(await balanceOf(chain, tsla, wallet.account.address)).toBe(3n)
    expect(assetAfter.taker - assetBefore.taker).toBe(quote.amountOut)
    expect(assetBefore.payer - assetAfter.payer).toBe(quote.amountOut + quote.feeAmount)
    expect(assetAfter.fee - assetBefore.fee).toBe(quote.feeAmount)
  })

  it('settles a fractional ShareToken buy in 18-decimal units', async () => {
    const wallet = await freshWallet(chain, { asset: '100' })
    const aapls = tokenOf(chain, 'AAPLs')
    const quote: SignedQuoteStruct = {
      quoteId: newQuoteId(),
      stockToken: aapls,
      assetToken: asset.address,
      isBuy: true,
      amountIn: parseUnits('56.93', asset.decimals),
      amountOut: parseUnits('0.25', 18),
      feeAmount: parseUnits('0.06', asset.decimals),
      expiresAt: (await latestTimestamp(wallet)) + 10n,
    }
    await approve(wallet, asset.address, chain.executorAddress, quote.amountIn)

    await execute(chain, wallet, quote, await signForChain(chain, quote))

    expect(await balanceOf(chain, aapls, wallet.account.address)).toBe(250_000_000_000_000_000n)
    expect(await balanceOf(chain, asset.address, wallet.account.address)).toBe(
      parseUnits('43.07', asset.decimals),
    )
  })

  describe('rejections', () => {
    async function validBuy(wallet: Wallet): Promise<SignedQuoteStruct> {
      const quote: SignedQuoteStruct = {
        quoteId: newQuoteId(),
        stockToken: tokenOf(chain, 'NVDA'),
        assetToken: asset.address,
        isBuy: true,
        amountIn: parseUnits('139', asset.decimals),
        amountOut: 1n,
        feeAmount: parseUnits('0.14', asset.decimals),
        expiresAt: (await latestTimestamp(wallet)) + 10n,
      }
      await approve(wallet, asset.address, chain.executorAddress, quote.amountIn * 2n)
      return quote
    }

    it('reverts an expired quote with QuoteExpired', async () => {
      const wallet = await freshWallet(chain, { asset: '1000' })
      const quote = { ...(await validBuy(wallet)), expiresAt: (await latestTimestamp(wallet)) - 1n }
      await expectRevert(
        simulateExecute(chain, wallet, quote, await signForChain(chain, quote)),
        'QuoteExpired',
      )
    })

    it('reverts a reused quote id with QuoteAlreadyUsed', async () => {
      const wallet = await freshWallet(chain, { asset: '1000' })
      const quote = await validBuy(wallet)
      const signature = await signForChain(chain, quote)
      expect((await execute(chain, wallet, quote, signature)).status).toBe('success')
      await expectRevert(simulateExecute(chain, wallet, quote, signature), 'QuoteAlreadyUsed')
    })

    it('reverts a quote signed by another key with InvalidSigner', async () => {
      const wallet = await freshWallet(chain, { asset: '1000' })
      const quote = await validBuy(wallet)
      const signature = await signForChain(chain, quote, generatePrivateKey())
      await expectRevert(simulateExecute(chain, wallet, quote, signature), 'InvalidSigner')
    })

    it('reverts a quote whose amount was tampered with after signing with InvalidSigner', async () => {
      const wallet = await freshWallet(chain, { asset: '1000' })
      const quote = await validBuy(wallet)
      const signature = await signForChain(chain, quote)
      const tampered = { ...quote, amountOut: quote.amountOut + 1n }
      await expectRevert(simulateExecute(chain, wallet, tampered, signature), 'InvalidSigner')
    })

    it('sends nothing on a revert: the taker keeps its asset', async () => {
      const wallet = await freshWallet(chain, { asset: '1000' })
      const quote = { ...(await validBuy(wallet)), expiresAt: 1n }
      await expectRevert(
        simulateExecute(chain, wallet, quote, await signForChain(chain, quote)),
        'QuoteExpired',
      )
      expect(await balanceOf(chain, asset.address, wallet.account.address)).toBe(
        parseUnits('1000', asset.decimals),
      )
    })
  })
})

describe('EIP-712 domain binds the executing contract', () => {
  it('a quote signed for the platform router is refused by the settlement contract of the same chain', async () => {
    const chain = chainWithRouter()
    const wallet = await freshWallet(chain, { asset: '1000' })
    const quote: SignedQuoteStruct = {
      quoteId: newQuoteId(),
      stockToken: tokenOf(chain, 'AAPL'),
      assetToken: chain.defaultAsset.address,
      isBuy: true,
      amountIn: parseUnits('228', chain.defaultAsset.decimals),
      amountOut: 1n,
      feeAmount: 0n,
      expiresAt: (await latestTimestamp(wallet)) + 10n,
    }
    const signature = await signForChain(chain, quote)
    await approve(wallet, chain.defaultAsset.address, chain.settlementAddress, quote.amountIn)
    await expectRevert(
      wallet.publicClient.simulateContract({
        account: wallet.account,
        address: chain.settlementAddress,
        abi: rfqSettlementAbi,
        functionName: 'execute',
        args: [quote, signature],
      }),
      'InvalidSigner',
    )
  })

  it("a quote signed for one chain is refused on the other chain's executor", async () => {
    const [signedFor, executedOn] = [chainWithoutRouter(), chainWithRouter()]
    const wallet = await freshWallet(executedOn, { asset: '1000' })
    const quote: SignedQuoteStruct = {
      quoteId: newQuoteId(),
      stockToken: tokenOf(executedOn, 'AAPL'),
      assetToken: executedOn.defaultAsset.address,
      isBuy: true,
      amountIn: parseUnits('228', executedOn.defaultAsset.decimals),
      amountOut: 1n,
      feeAmount: 0n,
      expiresAt: (await latestTimestamp(wallet)) + 10n,
    }
    const signature = await signForChain(signedFor, quote, executedOn.roles.operator.privateKey)
    await approve(wallet, executedOn.defaultAsset.address, executedOn.executorAddress, quote.amountIn)
    await expectRevert(simulateExecute(executedOn, wallet, quote, signature), 'InvalidSigner')
  })
})
