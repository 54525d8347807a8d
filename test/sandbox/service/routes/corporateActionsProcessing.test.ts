import { stockTokenAbi, stockTokenManagerAbi } from '@stockroute/sandbox/contracts/artifacts/index.js'
import type { LocalChain } from '@stockroute/sandbox/localChains.js'
import { onChainActionId } from '@stockroute/sandbox/service/ledger/ids.js'
import { usdPerMarketCurrency } from '@stockroute/sandbox/service/quotes/quotePricing.js'
import { type Address, erc20Abi, type Hex, parseEventLogs, parseUnits } from 'viem'
import { beforeAll, describe, expect, it } from 'vitest'
import { balanceOf, clientsFor } from '../../../helpers/localChains.js'
import { expectRevert } from '../../../helpers/reverts.js'
import { apiCall } from '../../../helpers/sandboxService.js'
import {
  executeQuote,
  listOwnStock,
  simulateTransfer,
  usePrivateChains,
  type Wallet,
  walletOn,
} from '../ledger/ledgerFixtures.js'
import { type ActionJson, corporateActionCalls } from './corporateActionCalls.js'

// Each kind of corporate action triggered then processed on chain, as the sandbox's back office
// does it: splits, a dividend, a ticker change, a delisting. The maker's list of records and the
// trigger's refusals are in corporateActionsListAndValidation.test.ts.

// Chains of this file's own: its many executions never disturb other files' platform-wide numbers.
const privateChains = usePrivateChains({ chainIds: [41_837, 41_838] })
const service = () => privateChains().service
const chainA = () => privateChains().withRouter
const chainB = () => privateChains().withoutRouter
const { trigger, triggered, processAction, processed, actionsOf, positionOf, recordOf } =
  corporateActionCalls(service)

async function receiptOf(chain: LocalChain, hash: Hex) {
  return clientsFor(chain, chain.roles.deployer.privateKey).publicClient.getTransactionReceipt({ hash })
}

describe('a stock split with locked tokens, triggered then processed', () => {
  let ticker: string
  let token: Address
  let small: Wallet
  let large: Wallet
  let buyer: Wallet
  let action: ActionJson

  beforeAll(async () => {
    const listing = await listOwnStock(service(), chainA())
    ticker = listing.ticker
    token = listing.address
    small = await walletOn(chainA(), { tokens: { [token]: 5n } })
    large = await walletOn(chainA(), { tokens: { [token]: 10n } })
    buyer = await walletOn(chainA(), { asset: parseUnits('1000', 6) })
    await executeQuote(service(), buyer, { ticker, isBuy: true, quantity: 4n, price: 10_000_000n })
    action = await triggered({
      chain_id: chainA().chainId,
      ticker,
      exchange: 0,
      action_type: 'stock_split',
      params: { numerator: 3, denominator: 2 },
      lock_tokens: true,
    })
  })

  it('trigger creates one triggered record per holder, the payer excluded, with the expected quantities', () => {
    expect(action.status).toBe('triggered')
    expect(action.records.map((r) => r.maker).sort()).toEqual(
      [small, large, buyer].map((w) => w.account.address).sort(),
    )
    expect(action.records.some((r) => r.maker.toLowerCase() === chainA().payerAddress.toLowerCase())).toBe(
      false,
    )
    const expected = [
      [small, '5', '7', '0.5'],
      [large, '10', '15', '0'],
      [buyer, '4', '6', '0'],
    ] as const
    for (const [wallet, holding, after, compensation] of expected) {
      expect(recordOf(action, wallet.account.address)).toMatchObject({
        holding_qty: holding,
        action_qty: after,
        compensation_qty: compensation,
        status: 'triggered',
        is_token_locked: true,
        processed_hash: null,
        processed_at: null,
      })
    }
  })

  it("the maker's list returns the record with every field of the reference", async () => {
    const reply = await actionsOf(small.account.address)
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe(0)
    expect(reply.body.data.total_count).toBe(1)
    const [record] = reply.body.data.actions
    expect(record).toEqual({
      id: recordOf(action, small.account.address).id,
      maker: small.account.address,
      chain_id: chainA().chainId,
      holding_qty: '5',
      action_qty: '7',
      compensation_qty: '0.5',
      status: 'triggered',
      is_token_locked: true,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/),
      updated_at: expect.any(String),
      processed_hash: null,
      processed_at: null,
      remark: null,
      tax_rate: null,
      original_fee_amount: null,
      original_net_amount: null,
      original_compensation_amount: null,
      token_address: token,
      action_type: 'stock_split',
      params: { type: 'stock_split', numerator: 3, denominator: 2 },
      ticker,
      exchange: 0,
    })
  })

  it('a locked token cannot be transferred on chain', async () => {
    await expectRevert(simulateTransfer(small, token, large.account.address, 1n), 'TokenPaused')
  })

  it('positions show the locked quantity as locked_balance, nothing available', async () => {
    expect(await positionOf(small.account.address, chainA(), ticker)).toMatchObject({
      balance: '5',
      locked_balance: '5',
      available_balance: '0',
    })
  })

  it('process applies the split on chain, marks the records processed with the transaction hash and unlocks', async () => {
    const done = await processed(action.id)
    expect(done.status).toBe('processed')
    const record = recordOf(done, small.account.address)
    expect(record).toMatchObject({
      status: 'processed',
      holding_qty: '5',
      action_qty: '7',
      compensation_qty: '0.5',
    })
    expect(record.processed_hash).toMatch(/^0x[0-9a-f]{64}$/)
    expect(record.processed_at).toEqual(expect.any(String))
    const receipt = await receiptOf(chainA(), record.processed_hash as Hex)
    const adjusted = parseEventLogs({
      abi: stockTokenManagerAbi,
      logs: receipt.logs,
      eventName: 'HoldingAdjusted',
    })
    expect(adjusted.map((e) => e.args.actionId)).toContain(onChainActionId(action.id))

    expect(await balanceOf(chainA(), token, small.account.address)).toBe(7n)
    expect(await balanceOf(chainA(), token, large.account.address)).toBe(15n)
    expect(await balanceOf(chainA(), token, buyer.account.address)).toBe(6n)
    await simulateTransfer(small, token, large.account.address, 1n)
    const listed = await actionsOf(small.account.address)
    expect(listed.body.data.actions[0]).toMatchObject({
      status: 'processed',
      processed_hash: record.processed_hash,
    })
  })

  it('positions reflect the split: balance from the chain, nothing locked, avg_price scaled by the inverse ratio', async () => {
    expect(await positionOf(small.account.address, chainA(), ticker)).toMatchObject({
      balance: '7',
      locked_balance: '0',
      available_balance: '7',
    })
    // 4 bought at 10 USD = 40 USD of cost, now spread over 6 shares.
    expect(await positionOf(buyer.account.address, chainA(), ticker)).toMatchObject({
      balance: '6',
      avg_price: '6666666',
    })
  })

  it('processing again is a 409; an unknown id is a 404', async () => {
    expect((await processAction(action.id)).status).toBe(409)
    expect((await processAction('00000000-0000-4000-8000-000000000000')).status).toBe(404)
  })
})

describe('a reverse split without locking', () => {
  it('scales balances down on chain, records the fraction lost as compensation, never locks', async () => {
    const listing = await listOwnStock(service(), chainA())
    const holder = await walletOn(chainA(), { tokens: { [listing.address]: 10n } })
    const action = await triggered({
      chain_id: chainA().chainId,
      ticker: listing.ticker,
      exchange: 0,
      action_type: 'reverse_stock_split',
      params: { numerator: 1, denominator: 3 },
    })
    expect(recordOf(action, holder.account.address)).toMatchObject({
      is_token_locked: false,
      action_qty: '3',
    })
    await simulateTransfer(holder, listing.address, listing.address, 1n)
    const done = await processed(action.id)
    expect(recordOf(done, holder.account.address)).toMatchObject({
      status: 'processed',
      holding_qty: '10',
      action_qty: '3',
      compensation_qty: '0.333333333333333333',
    })
    expect(await balanceOf(chainA(), listing.address, holder.account.address)).toBe(3n)
    expect(await positionOf(holder.account.address, chainA(), listing.ticker)).toMatchObject({ balance: '3' })
  })
})

describe('a dividend on the chain with an 18-decimal asset, for a Hong Kong stock', () => {
  it('records tax, fee and net in the original currency and pays the net, converted to USD, in the default asset', async () => {
    const listing = await listOwnStock(service(), chainB(), { exchange: 1 })
    const holder = await walletOn(chainB(), { tokens: { [listing.address]: 100n } })
    const params = {
      type: 'dividend',
      dividend_per_share: '2.5',
      tax_rate: 10,
      fee_amount: '1',
      ex_dividend_date: '2026-03-02',
      dividend_date: '2026-03-20',
      distribution_plan: 'cash',
    }
    const action = await triggered({
      chain_id: chainB().chainId,
      ticker: listing.ticker,
      exchange: 1,
      action_type: 'dividend',
      params,
    })
    // 100 shares × 2.5 HKD = 250; tax 10 % = 25; fee 1: net 224 HKD.
    expect(recordOf(action, holder.account.address)).toMatchObject({
      holding_qty: '100',
      action_qty: '100',
      compensation_qty: null,
      tax_rate: '10',
      original_fee_amount: '1',
      original_net_amount: '224',
      params,
      exchange: 1,
    })
    const before = await balanceOf(chainB(), chainB().defaultAsset.address, holder.account.address)
    const done = await processed(action.id)
    const record = recordOf(done, holder.account.address)
    const expectedPayout = (parseUnits('224', 18) * usdPerMarketCurrency.hkex) / 10n ** 8n
    expect(expectedPayout).toBe(parseUnits('28.784', 18))
    const after = await balanceOf(chainB(), chainB().defaultAsset.address, holder.account.address)
    expect(after - before).toBe(expectedPayout)
    const receipt = await receiptOf(chainB(), record.processed_hash as Hex)
    const transfers = parseEventLogs({ abi: erc20Abi, logs: receipt.logs, eventName: 'Transfer' })
    expect(transfers[0]?.args).toMatchObject({ to: holder.account.address, value: expectedPayout })
    expect(await balanceOf(chainB(), listing.address, holder.account.address)).toBe(100n)
  })
})

describe('a ticker change', () => {
  it('renames the token on chain and in the listings; positions show the new ticker, earlier orders keep the old one', async () => {
    const listing = await listOwnStock(service(), chainA())
    const oldTicker = listing.ticker
    const newTicker = `${oldTicker}N`
    const buyer = await walletOn(chainA(), { asset: parseUnits('1000', 6) })
    const execution = await executeQuote(service(), buyer, {
      ticker: oldTicker,
      isBuy: true,
      quantity: 2n,
      price: 10_000_000n,
    })
    const action = await triggered({
      chain_id: chainA().chainId,
      ticker: oldTicker,
      exchange: 0,
      action_type: 'ticker_change',
      params: { new_ticker: newTicker },
    })
    expect(recordOf(action, buyer.account.address)).toMatchObject({
      params: { type: 'ticker_change', old_ticker: oldTicker, new_ticker: newTicker },
      holding_qty: '2',
      action_qty: '2',
      compensation_qty: null,
    })
    await processed(action.id)
    const symbol = await buyer.publicClient.readContract({
      address: listing.address,
      abi: stockTokenAbi,
      functionName: 'symbol',
    })
    expect(symbol).toBe(newTicker)
    expect(listing.ticker).toBe(newTicker)
    expect(await positionOf(buyer.account.address, chainA(), newTicker)).toMatchObject({ balance: '2' })
    const orders = await apiCall(service(), '/api/v1/orders', {
      credential: service().credential,
      makerAddress: buyer.account.address,
    })
    expect(orders.body.data.orders[0]).toMatchObject({
      order_hash: execution.quote.quoteId,
      ticker: oldTicker,
    })
    const stats = await apiCall(service(), `/api/v1/tickers/${newTicker}/stats`, {
      query: { exchange: 0, chain_id: chainA().chainId },
    })
    expect(stats.body.data).toMatchObject({ ticker: newTicker, orders: 1 })
  })

  it('a new ticker that already names a token of the chain is a 400', async () => {
    const listing = await listOwnStock(service(), chainA())
    const reply = await trigger({
      chain_id: chainA().chainId,
      ticker: listing.ticker,
      exchange: 0,
      action_type: 'ticker_change',
      params: { new_ticker: 'AAPL' },
    })
    expect(reply.status).toBe(400)
    expect(reply.body.details).toContain('AAPL')
  })
})

describe('a delisting', () => {
  it('burns every holding on chain, records action_qty 0 and deactivates the ticker', async () => {
    const listing = await listOwnStock(service(), chainA())
    const holder = await walletOn(chainA(), { tokens: { [listing.address]: 8n } })
    const action = await triggered({
      chain_id: chainA().chainId,
      ticker: listing.ticker,
      exchange: 0,
      action_type: 'delisting',
      lock_tokens: true,
    })
    expect(recordOf(action, holder.account.address)).toMatchObject({ holding_qty: '8', action_qty: '0' })
    const done = await processed(action.id)
    expect(recordOf(done, holder.account.address)).toMatchObject({ status: 'processed', action_qty: '0' })
    expect(await balanceOf(chainA(), listing.address, holder.account.address)).toBe(0n)
    expect(listing.isActive).toBe(false)
    const stats = await apiCall(service(), `/api/v1/tickers/${listing.ticker}/stats`, {
      query: { exchange: 0 },
    })
    expect(stats.status).toBe(404)
    expect(await positionOf(holder.account.address, chainA(), listing.ticker)).toBeUndefined()
    const again = await trigger({
      chain_id: chainA().chainId,
      ticker: listing.ticker,
      exchange: 0,
      action_type: 'delisting',
    })
    expect(again.status).toBe(400)
  })
})
