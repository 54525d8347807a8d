import type { Listing } from '@stockroute/sandbox/service/contextTypes.js'
import type { ChainTokenRecord, ChainTokensResponse } from '@stockroute/sandbox/service/routes/chainTokens.js'
import { type Address, erc20Abi, getAddress } from 'viem'
import { describe, expect, it } from 'vitest'
import { chainWithoutRouter, chainWithRouter, clientsFor, localChains } from '../../../helpers/localChains.js'
import { apiCall, useSandboxService } from '../../../helpers/sandboxService.js'

const service = useSandboxService()

/** Every ticker of the seeded catalogue, byte-wise sorted (digits before capitals before `s`). */
const allTickersSorted = [
  '0005',
  '000660',
  '005930',
  '035420',
  '0700',
  '1810',
  '9988',
  'AAPL',
  'AAPLs',
  'AMZN',
  'MSFT',
  'NVDA',
  'NVDAs',
  'TSLA',
  'TSLAs',
]

function listTokens(chainId: number | string, query: Record<string, string | number> = {}) {
  // biome-ignore lint/suspicious/noExplicitAny: error replies have another shape
  return apiCall<ChainTokensResponse & Record<string, any>>(service(), `/api/v1/chains/${chainId}/tokens`, {
    query,
  })
}

async function tickers(chainId: number, query: Record<string, string | number> = {}) {
  const reply = await listTokens(chainId, query)
  expect(reply.status, JSON.stringify(reply.body)).toBe(200)
  return reply.body.tokens.map((token) => token.ticker)
}

function listingOf(chainId: number, ticker: string): Listing {
  const listing = service()
    .context.listings.get(chainId)
    ?.find((candidate) => candidate.ticker === ticker)
  if (!listing) throw new Error(`no listing ${ticker} on ${chainId}`)
  return listing
}

/** Changes a listing of this file's own service for the duration of `body`. */
async function withListingChanged(listing: Listing, change: Partial<Listing>, body: () => Promise<void>) {
  const saved = { ...listing }
  Object.assign(listing, change)
  try {
    await body()
  } finally {
    Object.assign(listing, saved)
  }
}

describe('GET /api/v1/chains/{chain_id}/tokens', () => {
  it('is public and answers without the {code, data} wrapper', async () => {
    const chain = chainWithRouter()
    const reply = await listTokens(chain.chainId)
    expect(reply.status).toBe(200)
    expect(Object.keys(reply.body).sort()).toEqual(['chain_id', 'tokens', 'total'])
    expect(reply.body.chain_id).toBe(chain.chainId)
  })

  it('each token record is the token deployed on that chain, with the fields and types of the reference', async () => {
    for (const chain of localChains()) {
      const reply = await listTokens(chain.chainId)
      expect(reply.body.tokens).toHaveLength(chain.tokens.length)
      const { publicClient } = clientsFor(chain, chain.roles.deployer.privateKey)
      for (const deployed of chain.tokens) {
        const record = reply.body.tokens.find((token) => token.ticker === deployed.ticker)
        const expected: ChainTokenRecord = {
          ticker: deployed.ticker,
          stock_code: deployed.stock.stockCode,
          name: deployed.stock.name,
          exchange: { 0: 'USEX', 1: 'HKEX', 3: 'KREX' }[deployed.exchange],
          token_address: deployed.address,
          token_type: deployed.kind,
          underlying_token: deployed.underlying,
          decimals: deployed.kind === 'stock' ? 0 : 18,
          lot_size: String(deployed.stock.lotSize),
          spread_table_code: deployed.stock.spreadTableCode,
        }
        expect(record).toStrictEqual(expected)
      }
      // on chain: the address is an ERC-20 with the listed decimals; a ShareToken's underlying is listed
      const share = reply.body.tokens.find((token) => token.token_type === 'share')
      if (!share?.underlying_token) throw new Error('no ShareToken listed')
      expect(
        await publicClient.readContract({
          address: share.token_address,
          abi: erc20Abi,
          functionName: 'decimals',
        }),
      ).toBe(18)
      const underlying = reply.body.tokens.find((token) => token.token_address === share.underlying_token)
      expect(underlying?.ticker).toBe(share.ticker.slice(0, -1))
      expect(underlying?.decimals).toBe(0)
    }
    // the same ticker has a different address on each chain
    const [alpha, beta] = await Promise.all(localChains().map((chain) => listTokens(chain.chainId)))
    const addressOf = (body: ChainTokensResponse | undefined, ticker: string) =>
      body?.tokens.find((token) => token.ticker === ticker)?.token_address
    expect(addressOf(alpha?.body, 'AAPL')).not.toBe(addressOf(beta?.body, 'AAPL'))
  })

  it('rule 1: only active tokens with an address are returned', async () => {
    const chain = chainWithRouter()
    expect(await tickers(chain.chainId)).toEqual(allTickersSorted)

    await withListingChanged(listingOf(chain.chainId, 'MSFT'), { isActive: false }, async () => {
      const reply = await listTokens(chain.chainId)
      expect(reply.body.tokens.map((token) => token.ticker)).not.toContain('MSFT')
      expect(reply.body.total).toBe(allTickersSorted.length - 1)
      expect((await listTokens(chain.chainId, { ticker: 'MSFT' })).body).toStrictEqual({
        chain_id: chain.chainId,
        tokens: [],
        total: 0,
      })
      // only on this chain: the other chain's MSFT is still active
      expect(await tickers(chainWithoutRouter().chainId, { ticker: 'MSFT' })).toEqual(['MSFT'])
    })

    await withListingChanged(listingOf(chain.chainId, 'NVDAs'), { address: '' as Address }, async () => {
      const reply = await listTokens(chain.chainId)
      expect(reply.body.tokens.map((token) => token.ticker)).not.toContain('NVDAs')
      expect(reply.body.total).toBe(allTickersSorted.length - 1)
    })

    expect(await tickers(chain.chainId)).toEqual(allTickersSorted)
  })

  it('rule 2: filters combine with AND', async () => {
    const chain = chainWithRouter()
    const id = chain.chainId
    expect(await tickers(id, { exchange_id: 0 })).toEqual([
      'AAPL',
      'AAPLs',
      'AMZN',
      'MSFT',
      'NVDA',
      'NVDAs',
      'TSLA',
      'TSLAs',
    ])
    expect(await tickers(id, { exchange_id: 1 })).toEqual(['0005', '0700', '1810', '9988'])
    expect(await tickers(id, { exchange_id: 3 })).toEqual(['000660', '005930', '035420'])
    expect(await tickers(id, { token_type: 'share' })).toEqual(['AAPLs', 'NVDAs', 'TSLAs'])
    expect(await tickers(id, { exchange_id: 0, token_type: 'stock' })).toEqual([
      'AAPL',
      'AMZN',
      'MSFT',
      'NVDA',
      'TSLA',
    ])
    // stock_code is shared by a stock and its ShareToken; ticker tells them apart
    expect(await tickers(id, { stock_code: 'AAPL' })).toEqual(['AAPL', 'AAPLs'])
    expect(await tickers(id, { stock_code: 'AAPL', token_type: 'share' })).toEqual(['AAPLs'])
    expect(await tickers(id, { stock_code: 'AAPL', ticker: 'AAPL' })).toEqual(['AAPL'])
    expect(await tickers(id, { stock_code: '00700', exchange_id: 1 })).toEqual(['0700'])
    // each filter alone matches, together they do not
    expect(await tickers(id, { ticker: 'AAPL', exchange_id: 1 })).toEqual([])
    expect(await tickers(id, { ticker: '0700', token_type: 'share' })).toEqual([])
    expect(await tickers(id, { ticker: 'AAPL', stock_code: 'TSLA' })).toEqual([])
    // ticker is exact and case-sensitive
    expect(await tickers(id, { ticker: 'aapl' })).toEqual([])
    expect(await tickers(id, { ticker: 'AAP' })).toEqual([])
    expect(await tickers(id, { ticker: 'AAPLS' })).toEqual([])
    // token_address: exact address, checksummed or lowercase alike
    const tsla = chain.tokens.find((token) => token.ticker === 'TSLA')?.address as Address
    expect(await tickers(id, { token_address: getAddress(tsla) })).toEqual(['TSLA'])
    expect(await tickers(id, { token_address: tsla.toLowerCase() })).toEqual(['TSLA'])
    expect(await tickers(id, { token_address: tsla, exchange_id: 0, token_type: 'stock' })).toEqual(['TSLA'])
    expect(await tickers(id, { token_address: tsla, token_type: 'share' })).toEqual([])
    // another chain's address of the same ticker is not this chain's token
    const tslaElsewhere = chainWithoutRouter().tokens.find((token) => token.ticker === 'TSLA')
      ?.address as Address
    expect(await tickers(id, { token_address: tslaElsewhere })).toEqual([])
    // an exchange code that lists nothing matches nothing
    expect(await tickers(id, { exchange_id: 2 })).toEqual([])
  })

  it('rule 3: results are sorted alphabetically by ticker', async () => {
    for (const chain of localChains()) {
      const listed = await tickers(chain.chainId)
      expect(listed).toEqual(allTickersSorted)
      expect(listed).toEqual([...listed].sort())
      // the order of the listings inside the service does not matter
      const listings = service().context.listings.get(chain.chainId) ?? []
      const original = [...listings]
      listings.reverse()
      try {
        expect(await tickers(chain.chainId)).toEqual(allTickersSorted)
      } finally {
        listings.splice(0, listings.length, ...original)
      }
    }
  })

  it('rule 4: total counts all records matching the filter, whatever the page', async () => {
    const id = chainWithRouter().chainId
    expect((await listTokens(id)).body.total).toBe(15)
    expect((await listTokens(id, { exchange_id: 0 })).body.total).toBe(8)
    expect((await listTokens(id, { exchange_id: 0, page: 1, page_size: 3 })).body.total).toBe(8)
    expect((await listTokens(id, { exchange_id: 0, page: 3, page_size: 3 })).body.total).toBe(8)
    const beyond = await listTokens(id, { exchange_id: 0, page: 9, page_size: 3 })
    expect(beyond.body.tokens).toEqual([])
    expect(beyond.body.total).toBe(8)
    expect((await listTokens(id, { ticker: 'NOPE' })).body.total).toBe(0)
  })

  it('rule 5: page and page_size together paginate and add page, page_size and total_pages', async () => {
    const id = chainWithRouter().chainId
    const collected: string[] = []
    for (let page = 1; page <= 4; page++) {
      const reply = await listTokens(id, { page, page_size: 4 })
      expect(reply.status).toBe(200)
      expect(Object.keys(reply.body).sort()).toEqual([
        'chain_id',
        'page',
        'page_size',
        'tokens',
        'total',
        'total_pages',
      ])
      expect(reply.body).toMatchObject({ chain_id: id, total: 15, page, page_size: 4, total_pages: 4 })
      expect(reply.body.tokens.length).toBe(page < 4 ? 4 : 3)
      collected.push(...reply.body.tokens.map((token) => token.ticker))
    }
    expect(collected).toEqual(allTickersSorted)
    const past = await listTokens(id, { page: 5, page_size: 4 })
    expect(past.body).toStrictEqual({
      chain_id: id,
      tokens: [],
      total: 15,
      page: 5,
      page_size: 4,
      total_pages: 4,
    })
    const empty = await listTokens(id, { ticker: 'NOPE', page: 1, page_size: 10 })
    expect(empty.body).toStrictEqual({
      chain_id: id,
      tokens: [],
      total: 0,
      page: 1,
      page_size: 10,
      total_pages: 0,
    })
  })

  it('rule 5: with neither page nor page_size all records are returned and the three fields are absent', async () => {
    const id = chainWithRouter().chainId
    const reply = await listTokens(id, { exchange_id: 1 })
    expect(reply.body.tokens).toHaveLength(4)
    expect(reply.body).not.toHaveProperty('page')
    expect(reply.body).not.toHaveProperty('page_size')
    expect(reply.body).not.toHaveProperty('total_pages')
  })

  it('rule 5: page without page_size paginates with the default page_size 100', async () => {
    const id = chainWithRouter().chainId
    const first = await listTokens(id, { page: 1 })
    expect(first.body).toMatchObject({ total: 15, page: 1, page_size: 100, total_pages: 1 })
    expect(first.body.tokens).toHaveLength(15)
    const second = await listTokens(id, { page: 2 })
    expect(second.body).toMatchObject({ tokens: [], total: 15, page: 2, page_size: 100, total_pages: 1 })
  })

  it('rule 5: page_size without page paginates from page 1', async () => {
    const id = chainWithRouter().chainId
    const reply = await listTokens(id, { page_size: 2 })
    expect(reply.body).toMatchObject({ total: 15, page: 1, page_size: 2, total_pages: 8 })
    expect(reply.body.tokens.map((token) => token.ticker)).toEqual(allTickersSorted.slice(0, 2))
  })

  it('limit: page_size is at most 500; above it is a 400 naming the limit', async () => {
    const id = chainWithRouter().chainId
    expect((await listTokens(id, { page: 1, page_size: 500 })).body).toMatchObject({
      page_size: 500,
      total_pages: 1,
    })
    const refused = await listTokens(id, { page: 1, page_size: 501 })
    expect(refused.status).toBe(400)
    expect(refused.body).toStrictEqual({
      code: 400,
      message: 'Invalid parameter',
      details: expect.stringMatching(/^page_size: must be at most 500/),
    })
  })

  it('an unknown chain id is a 404 {code, message, details} naming the served chains', async () => {
    const reply = await listTokens(424242)
    expect(reply.status).toBe(404)
    expect(reply.body).toStrictEqual({
      code: 404,
      message: 'Not found',
      details: expect.stringContaining('424242'),
    })
    for (const chain of localChains()) expect(reply.body.details).toContain(String(chain.chainId))
  })

  it.each([
    ['path chain_id', 'abc', {}, 'chain_id'],
    ['path chain_id', '-1', {}, 'chain_id'],
    ['path chain_id', '1.5', {}, 'chain_id'],
    ['exchange_id', null, { exchange_id: 'x' }, 'exchange_id'],
    ['exchange_id', null, { exchange_id: '' }, 'exchange_id'],
    ['page', null, { page: '0', page_size: '10' }, 'page'],
    ['page', null, { page: 'one' }, 'page'],
    ['page_size', null, { page: '1', page_size: '0' }, 'page_size'],
    ['page_size', null, { page_size: '1e3' }, 'page_size'],
    ['token_type', null, { token_type: 'bond' }, 'token_type'],
    ['token_address', null, { token_address: '0x1234' }, 'token_address'],
  ])('invalid %s (%s %o) is a 400 naming the parameter', async (_label, pathId, query, name) => {
    const reply = await listTokens(pathId ?? chainWithRouter().chainId, query)
    expect(reply.status).toBe(400)
    expect(reply.body).toMatchObject({ code: 400, message: 'Invalid parameter' })
    expect(reply.body.details.startsWith(`${name}:`), reply.body.details).toBe(true)
  })

  it('ignores unknown query parameters', async () => {
    const id = chainWithRouter().chainId
    expect(await tickers(id, { exchange: 1, foo: 'bar' })).toEqual(allTickersSorted)
  })
})
