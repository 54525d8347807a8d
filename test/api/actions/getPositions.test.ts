import { getPositions, iteratePositions, type Position } from '@stockroute/client/api/actions/getPositions.js'
import { createServiceClient } from '@stockroute/client/api/createServiceClient.js'
import { ServiceAuthError } from '@stockroute/client/api/errors.js'
import type { ShareQuantity, StockQuantity } from '@stockroute/client/domain/units.js'
import { parseUnits } from 'viem'
import { beforeAll, describe, expect, expectTypeOf, it } from 'vitest'
import { balanceOf, chainWithoutRouter, chainWithRouter, tokenOf } from '../../helpers/localChains.js'
import { apiCall, useSandboxService } from '../../helpers/sandboxService.js'
import { type Wallet, walletOn } from '../../sandbox/service/ledger/ledgerFixtures.js'
import { type QuoteExecution, quoteAndExecute } from './quoteExecution.js'

const service = useSandboxService({ requestsPerSecond: 1000 })

let onRouter: Wallet
let onSettlement: Wallet
const bought: Record<string, QuoteExecution> = {}

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

// One maker (the same key on both chains): tokens minted to it (held, never traded) and tokens
// bought through real quotes, five positions over two chains.
beforeAll(async () => {
  const withRouter = chainWithRouter()
  onRouter = await walletOn(withRouter, {
    asset: parseUnits('5000', 6),
    tokens: { [tokenOf(withRouter, 'MSFT')]: 3n, [tokenOf(withRouter, 'NVDAs')]: parseUnits('0.5', 18) },
  })
  onSettlement = await walletOn(chainWithoutRouter(), {
    privateKey: onRouter.privateKey,
    asset: parseUnits('5000', 18),
  })
  const client = createServiceClient({ baseUrl: service().url, credentials: service().credential })
  bought.AAPL = await quoteAndExecute(client, withRouter, onRouter, {
    ticker: 'AAPL',
    isBuy: true,
    amountIn: '1000',
  })
  bought.TSLAs = await quoteAndExecute(client, withRouter, onRouter, {
    ticker: 'TSLAs',
    isBuy: true,
    amountIn: '100',
  })
  bought.AAPLB = await quoteAndExecute(client, chainWithoutRouter(), onSettlement, {
    ticker: 'AAPL',
    isBuy: true,
    amountIn: '600',
  })
}, 120_000)

const key = (position: Position) => `${position.chainId}:${position.ticker}`

describe('getPositions', () => {
  it("lists the maker's holdings on every chain, balances on chain typed by the token's kind", async () => {
    const { positions, total, page, pageSize, totalPages } = await getPositions(keyClient().client, {
      pageSize: 100,
    })
    const a = chainWithRouter()
    const b = chainWithoutRouter()
    expect({ total, page, pageSize, totalPages }).toEqual({ total: 5, page: 1, pageSize: 100, totalPages: 1 })
    expect(positions.map(key).sort()).toEqual(
      [
        `${a.chainId}:AAPL`,
        `${a.chainId}:MSFT`,
        `${a.chainId}:NVDAs`,
        `${a.chainId}:TSLAs`,
        `${b.chainId}:AAPL`,
      ].sort(),
    )
    for (const position of positions) {
      const chain = position.chainId === a.chainId ? a : b
      const balance = await balanceOf(chain, tokenOf(chain, position.ticker), onRouter.account.address)
      expect(position).toMatchObject({
        tokenKind: position.ticker.endsWith('s') ? 'share' : 'stock',
        exchange: 0,
        tokenAddress: tokenOf(chain, position.ticker),
        balance,
        lockedBalance: 0n,
        availableBalance: balance,
      })
    }
    const byKey = Object.fromEntries(positions.map((position) => [key(position), position]))
    // Bought through a quote: the balance is what the quote delivered, at the quote's price.
    expect(byKey[`${a.chainId}:AAPL`]).toMatchObject({
      balance: bought.AAPL?.quote.amountOut,
      avgPrice: bought.AAPL?.quote.price,
    })
    expect(byKey[`${b.chainId}:AAPL`]).toMatchObject({
      balance: bought.AAPLB?.quote.amountOut,
      avgPrice: bought.AAPLB?.quote.price,
    })
    expect(byKey[`${a.chainId}:TSLAs`]).toMatchObject({
      tokenKind: 'share',
      balance: bought.TSLAs?.quote.amountOut,
    })
    // Minted, never bought: no average price.
    expect(byKey[`${a.chainId}:MSFT`]).toMatchObject({ tokenKind: 'stock', balance: 3n, avgPrice: 0n })
    expect(byKey[`${a.chainId}:NVDAs`]).toMatchObject({ tokenKind: 'share', balance: parseUnits('0.5', 18) })

    const share = byKey[`${a.chainId}:NVDAs`]
    if (share?.tokenKind === 'share') expectTypeOf(share.balance).toEqualTypeOf<ShareQuantity>()
    const stock = byKey[`${a.chainId}:MSFT`]
    if (stock?.tokenKind === 'stock') expectTypeOf(stock.availableBalance).toEqualTypeOf<StockQuantity>()
  })

  it('matches the raw reply position for position', async () => {
    const reply = await apiCall(service(), '/api/v1/positions', {
      credential: service().credential,
      makerAddress: onRouter.account.address,
      query: { page_size: 100 },
    })
    const { positions } = await getPositions(keyClient().client, { pageSize: 100 })
    expect(
      positions.map((p) => ({
        ticker: p.ticker,
        exchange: p.exchange,
        chain_id: p.chainId,
        token_address: p.tokenAddress,
        balance: String(p.balance),
        locked_balance: String(p.lockedBalance),
        available_balance: String(p.availableBalance),
        avg_price: String(p.avgPrice),
      })),
    ).toEqual(reply.body.data.positions)
  })

  it('by wallet JWT: the same positions as by API key', async () => {
    const client = createServiceClient({
      baseUrl: service().url,
      wallet: { account: onSettlement.account, chainId: chainWithoutRouter().chainId },
    })
    expect(await getPositions(client, { pageSize: 100 })).toEqual(
      await getPositions(keyClient().client, { pageSize: 100 }),
    )
    expect(client.session?.loginCount()).toBe(1)
  })

  it('filters by chain and by ticker, exact or fuzzy', async () => {
    const { client, urls } = keyClient()
    const a = chainWithRouter().chainId
    const onA = await getPositions(client, { chainId: a })
    expect(onA.positions.map((p) => p.ticker).sort()).toEqual(['AAPL', 'MSFT', 'NVDAs', 'TSLAs'])
    const exact = await getPositions(client, { ticker: 'AAPL' })
    expect(exact.positions.map(key).sort()).toEqual(
      [`${a}:AAPL`, `${chainWithoutRouter().chainId}:AAPL`].sort(),
    )
    const fuzzy = await getPositions(client, { ticker: 'aS', tickerLike: true, chainId: a })
    expect(fuzzy.positions.map((p) => p.ticker).sort()).toEqual(['NVDAs', 'TSLAs'])
    expect(Object.fromEntries(urls[2]?.searchParams ?? [])).toEqual({
      chain_id: String(a),
      ticker: 'aS',
      ticker_like: 'true',
    })
  })

  it('an API key without a maker address is refused', async () => {
    const client = createServiceClient({ baseUrl: service().url, credentials: service().credential })
    await expect(getPositions(client)).rejects.toBeInstanceOf(ServiceAuthError)
  })
})

describe('iteratePositions', () => {
  it('yields every position exactly once across pages of 2, then stops', async () => {
    const { client, urls } = keyClient()
    const seen: Position[] = []
    for await (const position of iteratePositions(client, { pageSize: 2 })) seen.push(position)
    expect(seen).toHaveLength(5)
    expect(new Set(seen.map(key)).size).toBe(5)
    expect(seen).toEqual((await getPositions(keyClient().client, { pageSize: 100 })).positions)
    expect(urls.map((url) => [url.searchParams.get('page'), url.searchParams.get('page_size')])).toEqual([
      ['1', '2'],
      ['2', '2'],
      ['3', '2'],
    ])
  })

  it('with a filter that matches nothing: nothing, after one request', async () => {
    const { client, urls } = keyClient()
    const none: Position[] = []
    for await (const position of iteratePositions(client, { ticker: 'NOPE' })) none.push(position)
    expect(none).toEqual([])
    expect(urls).toHaveLength(1)
  })
})
