import { startSandboxService } from '@stockroute/sandbox/service/startSandboxService.js'
import { parseUnits } from 'viem'
import { generatePrivateKey, privateKeyToAddress } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { apiCall } from '../../../helpers/sandboxService.js'
import { executeQuote, walletOn } from '../ledger/ledgerFixtures.js'
import {
  executionOrder,
  hashesFor,
  hashesOf,
  type Made,
  made,
  maker,
  type OrderJson,
  type OrdersPage,
  ordersOf,
  unregistered,
  useMakerOrders,
} from './ordersFixture.js'

// Chains of this file's own, with the maker's executions on them (see ordersFixture.ts).
const privateChains = useMakerOrders()
const service = () => privateChains().service
const chainA = () => privateChains().withRouter // platform router, 6-decimal asset
const chainB = () => privateChains().withoutRouter // settlement only, 18-decimal asset

describe('GET /api/v1/orders', () => {
  it("lists each of the maker's executions as a filled order with one fill, in the reference's fields", async () => {
    const reply = await ordersOf({ order_hash: made[0]?.quote.quoteId ?? '' })
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe(0)
    const execution = made[0] as Made
    const [order] = reply.body.data.orders
    const created = new Date(execution.blockTimestamp * 1000).toISOString()
    expect(order).toEqual({
      id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
      maker,
      principal: maker,
      is_buy: true,
      ticker: 'AAPL',
      exchange: 0,
      asset: chainA().defaultAsset.address,
      price: '227500000',
      quantity: '3',
      incentive: '0',
      deadline: Number(execution.quote.expiresAt),
      nonce: 0,
      signature: execution.signature,
      order_hash: execution.quote.quoteId,
      status: 'filled',
      filled_quantity: '3',
      notes: null,
      created_at: created,
      updated_at: created,
      fills: [
        {
          id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-5[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/),
          order_id: order?.id,
          order_hash: execution.quote.quoteId,
          taker: maker,
          fill_quantity: '3',
          fill_amount: (execution.quote.amountIn - execution.quote.feeAmount).toString(),
          fee_amount: execution.quote.feeAmount.toString(),
          incentive_amount: '0',
          taker_incentive: '0',
          tx_hash: execution.receipt.transactionHash,
          block_number: Number(execution.receipt.blockNumber),
          status: 'confirmed',
          reference_id: `${chainA().chainId}:${execution.receipt.transactionHash}:${execution.receipt.logs.at(-1)?.logIndex}`,
          created_at: created,
        },
      ],
    })
    expect(order?.fills?.[0]?.id).not.toBe(order?.id)
  })

  it("fill_amount is the gross asset amount: a buy's amountIn − fee, a sell's amountOut + fee", async () => {
    const sell = made[2] as Made
    const [order] = (await ordersOf({ order_hash: sell.quote.quoteId })).body.data.orders
    expect(order?.is_buy).toBe(false)
    expect(order?.quantity).toBe(sell.quote.amountIn.toString())
    expect(order?.fills?.[0]).toMatchObject({
      fill_quantity: '1',
      fill_amount: (sell.quote.amountOut + sell.quote.feeAmount).toString(),
      fee_amount: sell.quote.feeAmount.toString(),
    })
    expect(BigInt(order?.fills?.[0]?.fill_amount as string)).toBe(228_000_000n)
  })

  it('an execution of a quote the service did not issue takes ticker from the listing, signature and deadline from the execute input, price from the amounts', async () => {
    const [order] = (await ordersOf({ order_hash: unregistered.quote.quoteId })).body.data.orders
    expect(order).toMatchObject({
      ticker: 'NVDA',
      exchange: 0,
      asset: chainB().defaultAsset.address,
      signature: unregistered.signature,
      deadline: Number(unregistered.quote.expiresAt),
      price: parseUnits('139', 18).toString(),
      quantity: '4',
      nonce: 1,
    })
  })

  it('ids are derived from (chain, tx hash, log index): a second service reading the same chains gives the same ids and nonces', async () => {
    const first = (await ordersOf({ page_size: 100 })).body.data.orders
    const second = await startSandboxService({ local: { chains: privateChains().chains, wallets: [] } })
    try {
      const reply = await apiCall<{ data: OrdersPage }>(second, '/api/v1/orders', {
        credential: second.credential,
        makerAddress: maker,
        query: { page_size: 100 },
      })
      const pick = (orders: OrderJson[]) =>
        orders
          .map((o) => ({ id: o.id, fill: o.fills?.[0]?.id, nonce: o.nonce, hash: o.order_hash }))
          .sort((a, b) => (a.id < b.id ? -1 : 1))
      expect(pick(reply.body.data.orders)).toEqual(pick(first))
      expect(new Set(first.map((o) => o.id)).size).toBe(made.length)
    } finally {
      await second.stop()
    }
  })

  it("nonce counts the maker's orders per chain in execution order, from 0", async () => {
    const orders = (await ordersOf({ page_size: 100, sort_by: 'created_at', sort_order: 'asc' })).body.data
      .orders
    const byHash = new Map(orders.map((order) => [order.order_hash, order.nonce]))
    for (const chainId of [chainA().chainId, chainB().chainId]) {
      const onChain = made.filter((m) => m.chainId === chainId).sort(executionOrder)
      expect(onChain.map((m) => byHash.get(m.quote.quoteId))).toEqual(onChain.map((_, index) => index))
    }
  })

  it("shows only the authenticated maker's orders", async () => {
    const all = await hashesFor({})
    expect(all.sort()).toEqual(hashesOf(made).sort())
    const stranger = await ordersOf({}, privateKeyToAddress(generatePrivateKey()))
    expect(stranger.body.data).toEqual({ total: 0, page: 1, page_size: 20, total_pages: 0, orders: [] })
  })

  it('X-Maker-Addr in any letter case names the same maker', async () => {
    const lower = await ordersOf({}, maker.toLowerCase())
    expect(lower.body.data.total).toBe(made.length)
  })

  it('needs a maker key: 401 without credentials', async () => {
    const reply = await apiCall(service(), '/api/v1/orders')
    expect(reply.status).toBe(401)
  })

  describe('filters', () => {
    it('order_hash: exact, in any letter case', async () => {
      const target = made[1] as Made
      expect(await hashesFor({ order_hash: target.quote.quoteId.toUpperCase().replace('0X', '0x') })).toEqual(
        [target.quote.quoteId],
      )
    })

    it('principal: exact address', async () => {
      expect((await hashesFor({ principal: maker.toLowerCase() })).length).toBe(made.length)
      expect(await hashesFor({ principal: privateKeyToAddress(generatePrivateKey()) })).toEqual([])
    })

    it('ticker: exact and case-sensitive', async () => {
      expect((await hashesFor({ ticker: 'AAPL' })).sort()).toEqual(
        hashesOf(made.filter((m) => m.ticker === 'AAPL')).sort(),
      )
      expect(await hashesFor({ ticker: 'aapl' })).toEqual([])
    })

    it('ticker_like: case-insensitive substring', async () => {
      expect((await hashesFor({ ticker: 'aap', ticker_like: true })).sort()).toEqual(
        hashesOf(made.filter((m) => m.ticker.startsWith('AAPL'))).sort(),
      )
      expect(await hashesFor({ ticker: 'aap', ticker_like: false })).toEqual([])
    })

    it('exchange: exact', async () => {
      expect(await hashesFor({ exchange: 1 })).toEqual(hashesOf(made.filter((m) => m.exchange === 1)))
      expect(await hashesFor({ exchange: 3 })).toEqual([])
    })

    it('chain_id: one chain; every chain when absent', async () => {
      expect((await hashesFor({ chain_id: chainB().chainId })).sort()).toEqual(
        hashesOf(made.filter((m) => m.chainId === chainB().chainId)).sort(),
      )
      expect((await hashesFor({})).length).toBe(made.length)
    })

    it('asset: exact address', async () => {
      expect((await hashesFor({ asset: chainA().defaultAsset.address.toLowerCase() })).sort()).toEqual(
        hashesOf(made.filter((m) => m.chainId === chainA().chainId)).sort(),
      )
    })

    it('is_buy: exact', async () => {
      expect(await hashesFor({ is_buy: false })).toEqual(hashesOf(made.filter((m) => !m.isBuy)))
    })

    it('nonce: exact', async () => {
      expect((await hashesFor({ nonce: 1 })).sort()).toEqual(
        [made[1] as Made, made[5] as Made].map((m) => m.quote.quoteId).sort(),
      )
    })

    it('price_min and price_max: inclusive, compared as integers in base units', async () => {
      const hashes = await hashesFor({ price_min: '227600000', price_max: '251000000' })
      expect(hashes.sort()).toEqual(
        hashesOf(made.filter((m) => m.price >= 227_600_000n && m.price <= 251_000_000n)).sort(),
      )
      expect(hashes).toHaveLength(3)
    })

    it('quantity_min and quantity_max: inclusive, beyond 2^53 without loss', async () => {
      const half = parseUnits('0.5', 18)
      expect(await hashesFor({ quantity_min: half.toString() })).toEqual([made[3]?.quote.quoteId])
      expect(await hashesFor({ quantity_min: (half + 1n).toString() })).toEqual([])
      expect((await hashesFor({ quantity_max: '3' })).sort()).toEqual(
        hashesOf(made.filter((m) => m.quantity <= 3n)).sort(),
      )
    })

    it('incentive_min and incentive_max: every settled quote has incentive 0', async () => {
      expect((await hashesFor({ incentive_max: '0' })).length).toBe(made.length)
      expect(await hashesFor({ incentive_min: '1' })).toEqual([])
    })

    it('filled_quantity_min and filled_quantity_max: inclusive', async () => {
      expect((await hashesFor({ filled_quantity_min: '3', filled_quantity_max: '100' })).sort()).toEqual(
        hashesOf(made.filter((m) => m.quantity >= 3n && m.quantity <= 100n)).sort(),
      )
    })

    it('status: one value', async () => {
      expect((await hashesFor({ status: 'filled' })).length).toBe(made.length)
      expect(await hashesFor({ status: 'pending' })).toEqual([])
    })

    it('status: several, comma-separated', async () => {
      expect((await hashesFor({ status: 'pending,locked' })).length).toBe(0)
      expect((await hashesFor({ status: 'partially_filled,filled' })).length).toBe(made.length)
    })

    it('deadline_after and deadline_before: inclusive Unix seconds', async () => {
      const deadline = Number((made[2] as Made).quote.expiresAt)
      expect((await hashesFor({ deadline_after: deadline })).sort()).toEqual(
        hashesOf(made.filter((m) => Number(m.quote.expiresAt) >= deadline)).sort(),
      )
      expect((await hashesFor({ deadline_before: deadline })).sort()).toEqual(
        hashesOf(made.filter((m) => Number(m.quote.expiresAt) <= deadline)).sort(),
      )
    })

    it('created_after and created_before: inclusive Unix seconds of the block', async () => {
      const at = (made[3] as Made).blockTimestamp
      expect((await hashesFor({ created_after: at })).sort()).toEqual(
        hashesOf(made.filter((m) => m.blockTimestamp >= at)).sort(),
      )
      expect((await hashesFor({ created_before: at })).sort()).toEqual(
        hashesOf(made.filter((m) => m.blockTimestamp <= at)).sort(),
      )
      expect(await hashesFor({ created_before: at - 3600 })).toEqual([])
    })

    it('filters combine with AND', async () => {
      expect(await hashesFor({ ticker: 'AAPL', is_buy: true, chain_id: chainA().chainId })).toEqual([
        made[0]?.quote.quoteId,
      ])
    })
  })

  describe('sorting', () => {
    const sortedBy = (key: (m: Made) => bigint, direction: 'asc' | 'desc') => {
      const sign = direction === 'asc' ? 1 : -1
      return hashesOf(
        [...made].sort((a, b) => {
          const [x, y] = [key(a), key(b)]
          return sign * ((x < y ? -1 : x > y ? 1 : 0) || executionOrder(a, b))
        }),
      )
    }

    it('sort_by default: created_at, newest first', async () => {
      expect(await hashesFor({})).toEqual(sortedBy((m) => BigInt(m.blockTimestamp), 'desc'))
    })

    it('sort_by created_at with sort_order asc', async () => {
      expect(await hashesFor({ sort_by: 'created_at', sort_order: 'asc' })).toEqual(
        sortedBy((m) => BigInt(m.blockTimestamp), 'asc'),
      )
    })

    it('sort_by price: compared as integers in base units', async () => {
      expect(await hashesFor({ sort_by: 'price', sort_order: 'asc' })).toEqual(
        sortedBy((m) => m.price, 'asc'),
      )
    })

    it('sort_by quantity: descending by default order', async () => {
      const hashes = await hashesFor({ sort_by: 'quantity' })
      expect(hashes).toEqual(sortedBy((m) => m.quantity, 'desc'))
      expect(hashes[0]).toBe(made[3]?.quote.quoteId)
    })

    it('sort_by deadline', async () => {
      expect(await hashesFor({ sort_by: 'deadline', sort_order: 'asc' })).toEqual(
        sortedBy((m) => m.quote.expiresAt, 'asc'),
      )
    })

    it('sort_by incentive: all equal, so execution order in the sort direction', async () => {
      expect(await hashesFor({ sort_by: 'incentive', sort_order: 'asc' })).toEqual(sortedBy(() => 0n, 'asc'))
    })
  })

  describe('pagination', () => {
    it('page and page_size slice the sorted list; total and total_pages count every match', async () => {
      const all = await hashesFor({ sort_order: 'asc' })
      const second = await ordersOf({ sort_order: 'asc', page: 2, page_size: 4 })
      expect(second.body.data).toMatchObject({ total: made.length, page: 2, page_size: 4, total_pages: 2 })
      expect(second.body.data.orders.map((o) => o.order_hash)).toEqual(all.slice(4, 8))
    })

    it('a page past the end is empty, not an error', async () => {
      const reply = await ordersOf({ page: 5, page_size: 4 })
      expect(reply.status).toBe(200)
      expect(reply.body.data).toMatchObject({ total: made.length, page: 5, total_pages: 2, orders: [] })
    })

    it('page_size defaults to 20', async () => {
      const wallet = await walletOn(chainA(), { asset: parseUnits('10000', 6) })
      for (let index = 0; index < 21; index++) {
        await executeQuote(service(), wallet, {
          ticker: 'AMZN',
          isBuy: true,
          quantity: 1n,
          price: 186_400_000n,
        })
      }
      const reply = await ordersOf({}, wallet.account.address)
      expect(reply.body.data).toMatchObject({ total: 21, page: 1, page_size: 20, total_pages: 2 })
      expect(reply.body.data.orders).toHaveLength(20)
      const last = await ordersOf({ page: 2 }, wallet.account.address)
      expect(last.body.data.orders).toHaveLength(1)
    })

    it('page_size at most 100: 100 is accepted, 101 is a 400 naming the limit', async () => {
      expect((await ordersOf({ page_size: 100 })).status).toBe(200)
      const reply = await ordersOf({ page_size: 101 })
      expect(reply.status).toBe(400)
      expect(reply.body).toMatchObject({ code: 400, message: 'Invalid parameter' })
      expect(reply.body.details).toContain('page_size')
      expect(reply.body.details).toContain('100')
    })
  })

  describe('bad input is a 400 naming the parameter', () => {
    it.each([
      ['order_hash', { order_hash: '0x1234' }],
      ['principal', { principal: 'not-an-address' }],
      ['exchange', { exchange: 2 }],
      ['chain_id', { chain_id: 1 }],
      ['is_buy', { is_buy: 'yes' }],
      ['nonce', { nonce: -1 }],
      ['price_min', { price_min: '1.5' }],
      ['quantity_min', { quantity_min: '5', quantity_max: '4' }],
      ['status', { status: 'cancelled' }],
      ['sort_by', { sort_by: 'ticker' }],
      ['sort_order', { sort_order: 'up' }],
      ['page', { page: 0 }],
      ['created_after', { created_after: 'yesterday' }],
    ])('%s', async (name, query) => {
      const reply = await ordersOf(query as Record<string, string | number>)
      expect(reply.status).toBe(400)
      expect(reply.body.code).toBe(400)
      expect(reply.body.details).toContain(name)
    })
  })
})
