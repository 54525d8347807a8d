import { getOrders, iterateOrders, type Order } from '@stockroute/client/api/actions/getOrders.js'
import { createServiceClient } from '@stockroute/client/api/createServiceClient.js'
import { ServiceAuthError, ServiceBadRequestError } from '@stockroute/client/api/errors.js'
import type { AssetAmount, ShareQuantity, StockQuantity } from '@stockroute/client/domain/units.js'
import { parseUnits } from 'viem'
import { beforeAll, describe, expect, expectTypeOf, it } from 'vitest'
import { chainWithoutRouter, chainWithRouter } from '../../helpers/localChains.js'
import { apiCall, useSandboxService } from '../../helpers/sandboxService.js'
import { type Wallet, walletOn } from '../../sandbox/service/ledger/ledgerFixtures.js'
import { type QuoteExecution, quoteAndExecute } from './quoteExecution.js'

const service = useSandboxService({ requestsPerSecond: 1000 })

type Executed = QuoteExecution & { chainId: number }

let onRouter: Wallet
const executions: Executed[] = []

/** Maker by API key + signature with X-Maker-Addr; every request counted on its way to the real fetch. */
function keyClient() {
  const urls: URL[] = []
  const client = createServiceClient({
    baseUrl: service().url,
    credentials: service().credential,
    makerAddress: onRouter.account.address,
    fetch: (input, init) => {
      urls.push(new URL(String(input)))
      return fetch(input, init)
    },
  })
  return { client, urls }
}

// One maker (the same key on both chains) executes seven real quotes: StockTokens and ShareTokens,
// buys and a sell, stablecoin-in and stocktoken-in, on the chain with a router and the one without.
beforeAll(async () => {
  const withRouter = chainWithRouter()
  const withoutRouter = chainWithoutRouter()
  onRouter = await walletOn(withRouter, { asset: parseUnits('20000', 6) })
  const onSettlement = await walletOn(withoutRouter, {
    privateKey: onRouter.privateKey,
    asset: parseUnits('5000', 18),
  })
  const client = createServiceClient({ baseUrl: service().url, credentials: service().credential })
  const run = async (wallet: Wallet, request: Parameters<typeof quoteAndExecute>[3]) => {
    executions.push({
      ...(await quoteAndExecute(client, wallet.chain, wallet, request)),
      chainId: wallet.chain.chainId,
    })
  }
  await run(onRouter, { ticker: 'AAPL', isBuy: true, amountIn: '1000' })
  await run(onRouter, { ticker: 'AAPLs', isBuy: true, amountIn: '300' })
  await run(onRouter, { ticker: 'TSLA', isBuy: true, amountIn: '800' })
  await run(onRouter, { ticker: 'AAPL', isBuy: false, amountIn: '1' })
  await run(onRouter, { ticker: '1810', exchange: 1, isBuy: true, amountIn: '200', amountType: 'stocktoken' })
  await run(onSettlement, { ticker: 'NVDA', isBuy: true, amountIn: '700' })
  await run(onSettlement, { ticker: 'TSLAs', isBuy: true, amountIn: '100' })
}, 120_000)

function executionOf(order: Order): Executed {
  const execution = executions.find((e) => e.quote.quoteId === order.orderHash)
  if (!execution) throw new Error(`order ${order.orderHash} matches no execution of this test`)
  return execution
}

describe('getOrders', () => {
  it("lists the maker's executed quotes, each field typed and equal to the quote and its transaction", async () => {
    const { orders, total, page, pageSize, totalPages } = await getOrders(keyClient().client, {
      pageSize: 100,
    })
    expect({ total, page, pageSize, totalPages }).toEqual({ total: 7, page: 1, pageSize: 100, totalPages: 1 })
    expect(orders.map((order) => order.orderHash).sort()).toEqual(
      executions.map((e) => e.quote.quoteId).sort(),
    )
    const maker = onRouter.account.address
    for (const order of orders) {
      const { quote, signature, receipt } = executionOf(order)
      const quantity = quote.isBuy ? quote.amountOut : quote.amountInUsed
      const gross = quote.isBuy ? quote.amountInUsed - quote.feeAmount : quote.amountOut + quote.feeAmount
      expect(order).toEqual({
        id: expect.any(String),
        maker,
        principal: maker,
        isBuy: quote.isBuy,
        ticker: quote.ticker,
        tokenKind: quote.tokenKind,
        exchange: quote.exchange,
        asset: quote.assetToken,
        price: quote.price,
        quantity,
        incentive: 0n,
        deadline: quote.expiresAt,
        nonce: expect.any(Number),
        signature,
        orderHash: quote.quoteId,
        status: 'filled',
        filledQuantity: quantity,
        notes: null,
        createdAt: expect.any(String),
        updatedAt: expect.any(String),
        fills: [
          {
            id: expect.any(String),
            orderId: order.id,
            orderHash: quote.quoteId,
            taker: maker,
            fillQuantity: quantity,
            fillAmount: gross,
            feeAmount: quote.feeAmount,
            incentiveAmount: 0n,
            takerIncentive: 0n,
            txHash: receipt.transactionHash,
            blockNumber: Number(receipt.blockNumber),
            status: 'confirmed',
            referenceId: expect.any(String),
            createdAt: order.createdAt,
          },
        ],
      })
    }
    const kinds = Object.fromEntries(orders.map((order) => [order.ticker, order.tokenKind]))
    expect(kinds).toEqual({
      AAPL: 'stock',
      AAPLs: 'share',
      TSLA: 'stock',
      '1810': 'stock',
      NVDA: 'stock',
      TSLAs: 'share',
    })
    const share = orders.find((order) => order.ticker === 'AAPLs')
    expect(share?.quantity).toBeGreaterThan(10n ** 17n)
    if (share?.tokenKind === 'share') expectTypeOf(share.quantity).toEqualTypeOf<ShareQuantity>()
    const stock = orders.find((order) => order.ticker === 'TSLA')
    if (stock?.tokenKind === 'stock') expectTypeOf(stock.filledQuantity).toEqualTypeOf<StockQuantity>()
    expectTypeOf(orders[0]?.price).toEqualTypeOf<AssetAmount | undefined>()
  })

  it('matches the raw reply order for order (ISO times, ids, nonces as sent)', async () => {
    const reply = await apiCall(service(), '/api/v1/orders', {
      credential: service().credential,
      makerAddress: onRouter.account.address,
      query: { page_size: 100 },
    })
    const { orders } = await getOrders(keyClient().client, { pageSize: 100 })
    const rawOrders = reply.body.data.orders as Record<string, unknown>[]
    expect(
      orders.map((order) => [
        order.id,
        order.nonce,
        order.createdAt,
        order.updatedAt,
        String(order.quantity),
      ]),
    ).toEqual(rawOrders.map((raw) => [raw.id, raw.nonce, raw.created_at, raw.updated_at, raw.quantity]))
  })

  it('by wallet JWT: the same orders as by API key', async () => {
    const client = createServiceClient({
      baseUrl: service().url,
      wallet: { account: onRouter.account, chainId: chainWithRouter().chainId },
    })
    const byWallet = await getOrders(client, { pageSize: 100 })
    expect(byWallet).toEqual(await getOrders(keyClient().client, { pageSize: 100 }))
    expect(client.session?.loginCount()).toBe(1)
  })

  it('sends the filters under their reference names and the service applies them', async () => {
    const { client, urls } = keyClient()
    const sells = await getOrders(client, { isBuy: false })
    expect(sells.orders.map((order) => [order.ticker, order.quantity])).toEqual([['AAPL', 1n]])

    const aapl = await getOrders(client, {
      ticker: 'aapl',
      tickerLike: true,
      sortBy: 'createdAt',
      sortOrder: 'asc',
    })
    expect(aapl.orders.map((order) => order.ticker)).toEqual(['AAPL', 'AAPLs', 'AAPL'])

    const withoutRouter = await getOrders(client, { chainId: chainWithoutRouter().chainId })
    expect(withoutRouter.orders.map((order) => order.ticker).sort()).toEqual(['NVDA', 'TSLAs'])
    expect(new Set(withoutRouter.orders.map((order) => order.asset))).toEqual(
      new Set([chainWithoutRouter().defaultAsset.address]),
    )

    const hk = await getOrders(client, {
      exchange: 1,
      quantityMin: 200n,
      quantityMax: 200n,
      status: ['filled', 'pending'],
    })
    expect(hk.orders.map((order) => order.ticker)).toEqual(['1810'])
    expect((await getOrders(client, { status: 'pending' })).total).toBe(0)

    const [first] = (await getOrders(client, { orderHash: executions[0]?.quote.quoteId })).orders
    expect(first?.orderHash).toBe(executions[0]?.quote.quoteId)

    const queries = urls.map((url) => Object.fromEntries(url.searchParams))
    expect(queries[1]).toEqual({
      ticker: 'aapl',
      ticker_like: 'true',
      sort_by: 'created_at',
      sort_order: 'asc',
    })
    expect(queries[3]).toEqual({
      exchange: '1',
      quantity_min: '200',
      quantity_max: '200',
      status: 'filled,pending',
    })
  })

  it("a page size above the reference's maximum is the service's 400", async () => {
    const error = await getOrders(keyClient().client, { pageSize: 101 }).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(ServiceBadRequestError)
    expect((error as ServiceBadRequestError).shortMessage).toMatch(/page_size/)
  })

  it('an API key without a maker address is refused', async () => {
    const client = createServiceClient({ baseUrl: service().url, credentials: service().credential })
    await expect(getOrders(client)).rejects.toBeInstanceOf(ServiceAuthError)
  })
})

describe('iterateOrders', () => {
  it('yields every order exactly once across pages of 2, then stops', async () => {
    const { client, urls } = keyClient()
    const seen: Order[] = []
    for await (const order of iterateOrders(client, { pageSize: 2 })) seen.push(order)
    expect(seen).toHaveLength(7)
    expect(new Set(seen.map((order) => order.id)).size).toBe(7)
    expect(seen).toEqual((await getOrders(keyClient().client, { pageSize: 100 })).orders)
    expect(urls.map((url) => url.searchParams.get('page'))).toEqual(['1', '2', '3', '4'])
    expect(new Set(urls.map((url) => url.searchParams.get('page_size')))).toEqual(new Set(['2']))
  })

  it('walks filtered lists and empty ones (one request)', async () => {
    const buys: string[] = []
    for await (const order of iterateOrders(keyClient().client, { isBuy: true, pageSize: 3 }))
      buys.push(order.ticker)
    expect(buys).toHaveLength(6)
    const { client, urls } = keyClient()
    const none: Order[] = []
    for await (const order of iterateOrders(client, { status: 'pending' })) none.push(order)
    expect(none).toEqual([])
    expect(urls).toHaveLength(1)
  })

  it('stops with its AbortSignal', async () => {
    const controller = new AbortController()
    const walk = async () => {
      for await (const _order of iterateOrders(
        keyClient().client,
        { pageSize: 1 },
        { signal: controller.signal },
      )) {
        controller.abort(new Error('enough'))
      }
    }
    await expect(walk()).rejects.toThrow('enough')
  })
})
