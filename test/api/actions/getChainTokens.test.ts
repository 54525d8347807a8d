import {
  type ChainToken,
  getChainTokens,
  iterateChainTokens,
} from '@stockroute/client/api/actions/getChainTokens.js'
import { createServiceClient } from '@stockroute/client/api/createServiceClient.js'
import { ServiceBadRequestError, ServiceNotFoundError } from '@stockroute/client/api/errors.js'
import { StockrouteError } from '@stockroute/client/domain/errors.js'
import { exchangeNames } from '@stockroute/client/domain/markets.js'
import { describe, expect, it } from 'vitest'
import { chainWithoutRouter, chainWithRouter } from '../../helpers/localChains.js'
import { apiCall, useSandboxService } from '../../helpers/sandboxService.js'

const service = useSandboxService()

/** A client whose every request is counted on its way to the real fetch (counting, not mocking). */
function countingClient() {
  const urls: URL[] = []
  const client = createServiceClient({
    baseUrl: service().url,
    credentials: service().credential,
    fetch: (input, init) => {
      urls.push(new URL(String(input)))
      return fetch(input, init)
    },
  })
  return { client, urls }
}

/** What the reply record should become, written out field by field. */
function expectedToken(record: Record<string, unknown>): ChainToken {
  return {
    ticker: record.ticker as string,
    stockCode: record.stock_code as string,
    name: record.name as string,
    exchange: record.exchange as string,
    tokenAddress: record.token_address as `0x${string}`,
    tokenType: record.token_type as 'stock' | 'share',
    underlyingToken: (record.underlying_token ?? null) as `0x${string}` | null,
    decimals: record.decimals as number,
    lotSize: BigInt(record.lot_size as string),
    spreadTableCode: record.spread_table_code as string,
  }
}

describe('getChainTokens', () => {
  it('without filters: every token of the chain, as the raw reply has them, unpaginated', async () => {
    const chain = chainWithRouter()
    const raw = await apiCall(service(), `/api/v1/chains/${chain.chainId}/tokens`)
    const result = await getChainTokens(countingClient().client, { chainId: chain.chainId })
    expect(result.chainId).toBe(chain.chainId)
    expect(result.total).toBe(raw.body.total)
    expect(result.pagination).toBeNull()
    expect(result.tokens).toEqual(raw.body.tokens.map(expectedToken))
    // …and the deployed tokens, each at its address on this chain, sorted by ticker.
    expect(result.tokens.map((token) => [token.ticker, token.tokenAddress, token.decimals])).toEqual(
      [...chain.tokens]
        .sort((a, b) => (a.ticker < b.ticker ? -1 : 1))
        .map((token) => [token.ticker, token.address, token.decimals]),
    )
  })

  it('lot sizes are bigint whole shares; ShareTokens point to their StockToken', async () => {
    const chain = chainWithoutRouter()
    const hk = await getChainTokens(countingClient().client, { chainId: chain.chainId, exchangeId: 1 })
    expect(hk.total).toBe(4)
    expect(Object.fromEntries(hk.tokens.map((token) => [token.ticker, token.lotSize]))).toEqual({
      '0005': 400n,
      '0700': 100n,
      '1810': 200n,
      '9988': 100n,
    })
    expect(hk.tokens.every((token) => token.exchange === exchangeNames[1])).toBe(true)

    const shares = await getChainTokens(countingClient().client, {
      chainId: chain.chainId,
      tokenType: 'share',
    })
    expect(shares.tokens.map((token) => token.ticker)).toEqual(['AAPLs', 'NVDAs', 'TSLAs'])
    const aapl = chain.tokens.find((token) => token.ticker === 'AAPL')
    const aapls = shares.tokens[0]
    expect(aapls?.tokenType).toBe('share')
    expect(aapls?.decimals).toBe(18)
    expect(aapls?.underlyingToken).toBe(aapl?.address)
  })

  it('sends every filter: ticker, stock code and address (any case) each find exactly their token', async () => {
    const chain = chainWithRouter()
    const tencent = chain.tokens.find((token) => token.ticker === '0700')
    if (!tencent) throw new Error('0700 is not deployed')
    const { client, urls } = countingClient()
    const byTicker = await getChainTokens(client, { chainId: chain.chainId, ticker: '0700' })
    const byCode = await getChainTokens(client, { chainId: chain.chainId, stockCode: '00700' })
    const byAddress = await getChainTokens(client, {
      chainId: chain.chainId,
      tokenAddress: tencent.address.toLowerCase() as `0x${string}`,
    })
    const combined = await getChainTokens(client, {
      chainId: chain.chainId,
      exchangeId: 0,
      ticker: '0700',
      tokenType: 'stock',
    })
    for (const result of [byTicker, byCode, byAddress]) {
      expect(result.total).toBe(1)
      expect(result.tokens[0]?.tokenAddress).toBe(tencent.address)
      expect(result.tokens[0]?.stockCode).toBe('00700')
    }
    expect(combined.tokens).toEqual([])
    expect(combined.total).toBe(0)
    expect(Object.fromEntries(urls[3]?.searchParams ?? [])).toEqual({
      exchange_id: '0',
      ticker: '0700',
      token_type: 'stock',
    })
  })

  it('one page: the slice of the full list, with page, page size and total pages', async () => {
    const chain = chainWithRouter()
    const all = await getChainTokens(countingClient().client, { chainId: chain.chainId })
    const page = await getChainTokens(countingClient().client, {
      chainId: chain.chainId,
      page: 2,
      pageSize: 4,
    })
    expect(page.total).toBe(all.total)
    expect(page.pagination).toEqual({ page: 2, pageSize: 4, totalPages: Math.ceil(all.total / 4) })
    expect(page.tokens).toEqual(all.tokens.slice(4, 8))
  })

  it("refuses what the service refuses, with the service's reason", async () => {
    const client = countingClient().client
    await expect(getChainTokens(client, { chainId: 999_999 })).rejects.toBeInstanceOf(ServiceNotFoundError)
    const error = await getChainTokens(client, { chainId: chainWithRouter().chainId, pageSize: 501 }).catch(
      (caught: unknown) => caught,
    )
    expect(error).toBeInstanceOf(ServiceBadRequestError)
    expect((error as ServiceBadRequestError).shortMessage).toMatch(/page_size: must be at most 500/)
  })
})

describe('iterateChainTokens', () => {
  it.each([1, 4, 5, 15, 500])(
    'with page size %i: every token exactly once, in order, one request per page and none after the last',
    async (pageSize) => {
      const chain = chainWithoutRouter()
      const all = await getChainTokens(countingClient().client, { chainId: chain.chainId })
      expect(all.total).toBe(15)
      const { client, urls } = countingClient()
      const seen: ChainToken[] = []
      for await (const token of iterateChainTokens(client, { chainId: chain.chainId, pageSize }))
        seen.push(token)
      expect(seen).toEqual(all.tokens)
      expect(new Set(seen.map((token) => token.tokenAddress)).size).toBe(all.total)
      expect(urls.map((url) => url.searchParams.get('page'))).toEqual(
        Array.from({ length: Math.ceil(all.total / pageSize) }, (_, index) => String(index + 1)),
      )
      expect(urls.every((url) => url.searchParams.get('page_size') === String(pageSize))).toBe(true)
    },
  )

  it('applies the filters to every page', async () => {
    const chain = chainWithRouter()
    const { client, urls } = countingClient()
    const seen: string[] = []
    for await (const token of iterateChainTokens(client, {
      chainId: chain.chainId,
      exchangeId: 0,
      pageSize: 2,
    }))
      seen.push(token.ticker)
    expect(seen).toEqual(['AAPL', 'AAPLs', 'AMZN', 'MSFT', 'NVDA', 'NVDAs', 'TSLA', 'TSLAs'])
    expect(urls).toHaveLength(4)
    expect(urls.every((url) => url.searchParams.get('exchange_id') === '0')).toBe(true)
  })

  it('a listing added between two pages shifts the list, yet no token is yielded twice', async () => {
    const chain = chainWithoutRouter()
    const listings = service().context.listings.get(chain.chainId) ?? []
    const template = listings[0]
    if (!template) throw new Error('no listings')
    const { client } = countingClient()
    const seen: string[] = []
    try {
      for await (const token of iterateChainTokens(client, { chainId: chain.chainId, pageSize: 5 })) {
        seen.push(token.tokenAddress)
        // Sorted first: every later record moves one place forward, across the page boundary.
        if (seen.length === 5)
          listings.push({
            ...template,
            ticker: '0000',
            address: '0x00000000000000000000000000000000000000aa',
          })
      }
    } finally {
      listings.splice(
        listings.findIndex((listing) => listing.ticker === '0000'),
        1,
      )
    }
    expect(seen).toHaveLength(15)
    expect(new Set(seen).size).toBe(15)
  })

  it('nothing matching: one request, nothing yielded', async () => {
    const { client, urls } = countingClient()
    const seen: ChainToken[] = []
    for await (const token of iterateChainTokens(client, {
      chainId: chainWithRouter().chainId,
      ticker: 'NOPE',
    }))
      seen.push(token)
    expect(seen).toEqual([])
    expect(urls).toHaveLength(1)
  })

  it('stopping early fetches no further page', async () => {
    const { client, urls } = countingClient()
    const seen: string[] = []
    for await (const token of iterateChainTokens(client, {
      chainId: chainWithRouter().chainId,
      pageSize: 3,
    })) {
      seen.push(token.ticker)
      if (seen.length === 4) break
    }
    expect(seen).toHaveLength(4)
    expect(urls.map((url) => url.searchParams.get('page'))).toEqual(['1', '2'])
  })

  it('refuses a page size the service would refuse, before any request', async () => {
    const { client, urls } = countingClient()
    const walk = iterateChainTokens(client, { chainId: chainWithRouter().chainId, pageSize: 501 })
    await expect(walk.next()).rejects.toThrow(StockrouteError)
    await expect(
      iterateChainTokens(client, { chainId: chainWithRouter().chainId, pageSize: 0 }).next(),
    ).rejects.toThrow(/from 1 to 500/)
    expect(urls).toHaveLength(0)
  })
})
