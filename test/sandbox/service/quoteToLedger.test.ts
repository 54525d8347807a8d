import { rfqSettlementAbi } from '@stockroute/sandbox/contracts/artifacts/index.js'
import type { LocalChain } from '@stockroute/sandbox/localChains.js'
import { erc20Abi, type Hex } from 'viem'
import { describe, expect, it } from 'vitest'
import { balanceOf, freshWallet, tokenOf } from '../../helpers/localChains.js'
import { apiCall } from '../../helpers/sandboxService.js'
import { usePrivateChains } from './ledger/ledgerFixtures.js'

// Chains of this file's own: nothing else trades there, so stats deltas are exact.
const privateChains = usePrivateChains({ chainIds: [31_401, 31_402] })
const service = () => privateChains().service

/** Fetches a router quote over HTTP and executes it on chain with viem, as any client would. */
async function quoteAndExecute(
  chain: LocalChain,
  wallet: Awaited<ReturnType<typeof freshWallet>>,
  params: { ticker: string; exchange: number; is_buy: boolean; amount_in: string; amount_type?: string },
) {
  const reply = await apiCall(service(), '/api/v1/router/quote', {
    credential: service().credential,
    query: { chain_id: chain.chainId, asset: chain.defaultAsset.address, ...params },
  })
  expect(reply.status).toBe(200)
  const { quote, signature, required_approvals } = reply.body.data
  for (const approval of required_approvals) {
    const hash = await wallet.walletClient.writeContract({
      address: approval.token_address,
      abi: erc20Abi,
      functionName: 'approve',
      args: [approval.spender, BigInt(approval.amount)],
    })
    await wallet.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
  }
  const hash = await wallet.walletClient.writeContract({
    address: chain.executorAddress,
    abi: rfqSettlementAbi,
    functionName: 'execute',
    args: [
      {
        quoteId: quote.quote_id,
        stockToken: quote.stock_token,
        assetToken: quote.asset_token,
        isBuy: quote.is_buy,
        amountIn: BigInt(quote.amount_in_used),
        amountOut: BigInt(quote.amount_out),
        feeAmount: BigInt(quote.fee_amount),
        expiresAt: BigInt(quote.expires_at),
      },
      signature as Hex,
    ],
  })
  const receipt = await wallet.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
  expect(receipt.status).toBe('success')
  return { quote, receipt }
}

describe.each([
  ['with platform router', 'withRouter'],
  ['without router', 'withoutRouter'],
] as const)(
  'a quote fetched over HTTP and executed on the chain %s shows up in the maker data',
  (_label, which) => {
    const chainOf = () => privateChains()[which]

    it('as a filled order with its fill, a position equal to the on-chain balance, and in the stats', async () => {
      const chain = chainOf()
      const wallet = await freshWallet(chain, { asset: '5000' })
      const maker = wallet.account.address
      const statsBefore = (
        await apiCall(service(), '/api/v1/tickers/NVDA/stats', {
          query: { exchange: 0, chain_id: chain.chainId },
        })
      ).body.data
      const platformBefore = (
        await apiCall(service(), '/api/v1/stats', { query: { chain_ids: String(chain.chainId) } })
      ).body.data

      const { quote, receipt } = await quoteAndExecute(chain, wallet, {
        ticker: 'NVDA',
        exchange: 0,
        is_buy: true,
        amount_in: '1000',
      })

      const orders = await apiCall(service(), '/api/v1/orders', {
        credential: service().credential,
        makerAddress: maker,
      })
      expect(orders.status).toBe(200)
      expect(orders.body.data.total).toBe(1)
      const [order] = orders.body.data.orders
      expect(order).toMatchObject({
        is_buy: true,
        ticker: 'NVDA',
        exchange: 0,
        status: 'filled',
        quantity: quote.amount_out,
        filled_quantity: quote.amount_out,
        order_hash: quote.quote_id,
      })
      expect(order.maker.toLowerCase()).toBe(maker.toLowerCase())
      expect(order.fills).toHaveLength(1)
      expect(order.fills[0]).toMatchObject({
        tx_hash: receipt.transactionHash,
        block_number: Number(receipt.blockNumber),
        fill_quantity: quote.amount_out,
        fee_amount: quote.fee_amount,
        status: 'confirmed',
      })

      const positions = await apiCall(service(), '/api/v1/positions', {
        credential: service().credential,
        makerAddress: maker,
        query: { chain_id: chain.chainId, ticker: 'NVDA' },
      })
      const position = positions.body.data.positions.find((p: { ticker: string }) => p.ticker === 'NVDA')
      const onChain = await balanceOf(chain, tokenOf(chain, 'NVDA'), maker)
      expect(onChain).toBe(BigInt(quote.amount_out))
      expect(position).toMatchObject({
        chain_id: chain.chainId,
        balance: onChain.toString(),
        token_address: tokenOf(chain, 'NVDA'),
      })

      const statsAfter = (
        await apiCall(service(), '/api/v1/tickers/NVDA/stats', {
          query: { exchange: 0, chain_id: chain.chainId },
        })
      ).body.data
      expect(statsAfter.orders).toBe(statsBefore.orders + 1)
      const platformAfter = (
        await apiCall(service(), '/api/v1/stats', { query: { chain_ids: String(chain.chainId) } })
      ).body.data
      expect(platformAfter.total_orders).toBe(platformBefore.total_orders + 1)
      expect(BigInt(platformAfter.total_minted_tokens) - BigInt(platformBefore.total_minted_tokens)).toBe(
        BigInt(quote.amount_out),
      )
    })

    it('a sell shows up as a filled order and lowers the position to the on-chain balance', async () => {
      const chain = chainOf()
      const wallet = await freshWallet(chain, { tokens: { '9988': 300n } })
      const maker = wallet.account.address
      const { quote } = await quoteAndExecute(chain, wallet, {
        ticker: '9988',
        exchange: 1,
        is_buy: false,
        amount_in: '200',
      })
      const orders = await apiCall(service(), '/api/v1/orders', {
        credential: service().credential,
        makerAddress: maker,
        query: { is_buy: false },
      })
      expect(orders.body.data.orders.map((o: { quantity: string }) => o.quantity)).toEqual([
        quote.amount_in_used,
      ])
      const positions = await apiCall(service(), '/api/v1/positions', {
        credential: service().credential,
        makerAddress: maker,
      })
      const position = positions.body.data.positions.find(
        (p: { ticker: string; chain_id: number }) => p.ticker === '9988' && p.chain_id === chain.chainId,
      )
      expect(position?.balance).toBe('100')
    })
  },
)
