import { issueJwt } from '@stockroute/sandbox/service/auth/jwt.js'
import type { Listing } from '@stockroute/sandbox/service/contextTypes.js'
import type { TokenAddressRecord } from '@stockroute/sandbox/service/routes/tokenAddress.js'
import { erc20Abi } from 'viem'
import { describe, expect, it } from 'vitest'
import { chainWithoutRouter, chainWithRouter, clientsFor, localChains } from '../../../helpers/localChains.js'
import { type ApiCallOptions, apiCall, useSandboxService } from '../../../helpers/sandboxService.js'

const hourMs = 3_600_000
/** The service's clock: real time plus an offset the cache test moves forward (never back). */
let offsetMs = 0
const clock = { now: () => Date.now() + offsetMs }
const service = useSandboxService({ clock, requestsPerSecond: 1000 })

const path = '/api/v1/instruments/token-address'

function maker() {
  return chainWithRouter().roles.payer.address
}

// biome-ignore lint/suspicious/noExplicitAny: success and error replies have different shapes
type LookupReply = { code: number; data: TokenAddressRecord } & Record<string, any>

/** A lookup signed as a maker (API key + signature + X-Maker-Addr), stamped with the service's clock. */
function lookup(query: ApiCallOptions['query'], options: ApiCallOptions = {}) {
  return apiCall<LookupReply>(service(), path, {
    query: query ?? {},
    credential: service().credential,
    makerAddress: maker(),
    timestamp: clock.now(),
    ...options,
  })
}

function listingOf(chainId: number, ticker: string): Listing {
  const listing = service()
    .context.listings.get(chainId)
    ?.find((candidate) => candidate.ticker === ticker)
  if (!listing) throw new Error(`no listing ${ticker} on ${chainId}`)
  return listing
}

const notFoundText = (ticker: string, exchange: string | number, chainId: string | number) =>
  `Not found: not found or not available: ticker=${ticker}, exchange=${exchange}, chain_id=${chainId}`

describe('GET /api/v1/instruments/token-address', () => {
  it('returns {code: 0, data: token record} for a StockToken and a ShareToken, as deployed on chain', async () => {
    for (const chain of localChains()) {
      const stock = await lookup({ ticker: 'AAPL', exchange: 0, chain_id: chain.chainId })
      expect(stock.status).toBe(200)
      const aapl = chain.tokens.find((token) => token.ticker === 'AAPL')
      const aapls = chain.tokens.find((token) => token.ticker === 'AAPLs')
      if (!aapl || !aapls) throw new Error('catalogue lacks AAPL/AAPLs')
      expect(stock.body).toStrictEqual({
        code: 0,
        data: {
          ticker: 'AAPL',
          stock_code: 'AAPL',
          name: 'Apple Inc.',
          exchange_id: 0,
          chain_id: chain.chainId,
          token_address: aapl.address,
          token_type: 'stock',
          underlying_token: null,
          decimals: 0,
          is_active: true,
          lot_size: '1',
          spread_table_code: '1',
        },
      })
      const share = await lookup({ ticker: 'AAPLs', exchange: 0, chain_id: chain.chainId })
      expect(share.body.data).toMatchObject({
        ticker: 'AAPLs',
        token_address: aapls.address,
        token_type: 'share',
        underlying_token: aapl.address,
        decimals: 18,
      })
      const { publicClient } = clientsFor(chain, chain.roles.deployer.privateKey)
      expect(
        await publicClient.readContract({
          address: share.body.data.token_address,
          abi: erc20Abi,
          functionName: 'decimals',
        }),
      ).toBe(18)
    }
    const hk = await lookup({ ticker: '0700', exchange: 1, chain_id: chainWithoutRouter().chainId })
    expect(hk.body.data).toMatchObject({
      stock_code: '00700',
      exchange_id: 1,
      lot_size: '100',
      spread_table_code: '1',
    })
  })

  it('without chain_id, answers for the default chain', async () => {
    const defaultChainId = service().context.defaultChainId
    const reply = await lookup({ ticker: 'TSLA', exchange: 0 })
    expect(reply.status).toBe(200)
    expect(reply.body.data.chain_id).toBe(defaultChainId)
    expect(reply.headers.get('x-cache-key')).toBe(`token_addr:TSLA:0:${defaultChainId}`)
  })

  it('needs maker authentication: API key + signature with X-Maker-Addr, or a bearer JWT', async () => {
    const query = { ticker: 'NVDA', exchange: 0 }
    const anonymous = await apiCall(service(), path, { query })
    expect(anonymous.status).toBe(401)
    const institution = await apiCall(service(), path, {
      query,
      credential: service().credential,
      timestamp: clock.now(),
    })
    expect(institution.status).toBe(401)
    expect(institution.body).toMatchObject({ code: 401, message: 'Missing maker address' })
    const jwt = await issueJwt({
      secret: service().context.jwt.secret,
      claims: { walletAddress: maker().toLowerCase() as `0x${string}`, chainId: chainWithRouter().chainId },
      nowMs: clock.now(),
      lifetimeSeconds: 3600,
    })
    const bearer = await apiCall(service(), path, { query, bearer: jwt })
    expect(bearer.status).toBe(200)
    expect(bearer.body.data.ticker).toBe('NVDA')
  })

  it('rule 1: a lookup is cached 4 hours under token_addr:{ticker}:{exchange_id}:{chain_id}', async () => {
    const chain = chainWithoutRouter()
    const query = { ticker: 'MSFT', exchange: 0, chain_id: chain.chainId }
    const key = `token_addr:MSFT:0:${chain.chainId}`
    const listing = listingOf(chain.chainId, 'MSFT')
    try {
      const first = await lookup(query)
      expect(first.status).toBe(200)
      expect(first.headers.get('x-cache')).toBe('MISS')
      expect(first.headers.get('x-cache-key')).toBe(key)
      expect(first.headers.get('cache-control')).toBe('private, max-age=14400')
      expect(service().context.tokenAddressCache.get(key, clock.now())).toStrictEqual(first.body.data)

      offsetMs += hourMs
      const second = await lookup(query)
      expect(second.headers.get('x-cache')).toBe('HIT')
      expect(second.headers.get('cache-control')).toBe('private, max-age=10800')
      expect(second.body).toStrictEqual(first.body)

      // deactivated meanwhile: the cached record keeps answering until its 4 hours are up
      listing.isActive = false
      offsetMs += 3 * hourMs - 1000
      const stale = await lookup(query)
      expect(stale.status).toBe(200)
      expect(stale.headers.get('x-cache')).toBe('HIT')
      expect(stale.headers.get('cache-control')).toBe('private, max-age=1')
      expect(stale.body).toStrictEqual(first.body)
      // the same number written otherwise is the same key: still the cached record
      const sameKey = await lookup({ ...query, exchange: '+0', chain_id: `0${chain.chainId}` })
      expect(sameKey.headers.get('x-cache')).toBe('HIT')
      expect(sameKey.body).toStrictEqual(first.body)

      offsetMs += 1000
      const expired = await lookup(query)
      expect(expired.status).toBe(404)
      expect(expired.body).toStrictEqual({ error: notFoundText('MSFT', 0, chain.chainId) })
      expect(expired.headers.get('x-cache')).toBe('MISS')

      // reactivated: a miss again, cached afresh for 4 hours
      listing.isActive = true
      const fresh = await lookup(query)
      expect(fresh.status).toBe(200)
      expect(fresh.headers.get('x-cache')).toBe('MISS')
      expect(fresh.headers.get('cache-control')).toBe('private, max-age=14400')
    } finally {
      // the clock stays where it is: it never runs backwards (rate limits and JWTs read it too)
      listing.isActive = true
    }
  })

  it('rule 1: the key holds the parsed values, so equal numbers share one entry and chains have their own', async () => {
    const chain = chainWithRouter()
    const first = await lookup({ ticker: 'AMZN', exchange: 0, chain_id: chain.chainId })
    expect(first.headers.get('x-cache')).toBe('MISS')
    const same = await lookup({ ticker: 'AMZN', exchange: '+0', chain_id: `00${chain.chainId}` })
    expect(same.headers.get('x-cache')).toBe('HIT')
    expect(same.headers.get('x-cache-key')).toBe(`token_addr:AMZN:0:${chain.chainId}`)
    // the default chain resolves before the key is formed
    const defaulted = await lookup({ ticker: 'AMZN', exchange: 0 })
    expect(defaulted.headers.get('x-cache-key')).toBe(`token_addr:AMZN:0:${service().context.defaultChainId}`)
    const other = await lookup({ ticker: 'AMZN', exchange: 0, chain_id: chainWithoutRouter().chainId })
    expect(other.headers.get('x-cache')).toBe('MISS')
    expect(other.body.data.token_address).not.toBe(first.body.data.token_address)
  })

  it('rule 2: an empty or unknown ticker, or a combination matching no token, is {error: "Not found: ..."}', async () => {
    const alpha = chainWithRouter().chainId
    const defaultChainId = service().context.defaultChainId
    const cases: [Record<string, string | number>, string][] = [
      [{ ticker: '', exchange: 0, chain_id: alpha }, notFoundText('', 0, alpha)],
      [{ exchange: 0, chain_id: alpha }, notFoundText('', 0, alpha)],
      [{ ticker: 'ZZZZ', exchange: 0, chain_id: alpha }, notFoundText('ZZZZ', 0, alpha)],
      [{ ticker: 'aapl', exchange: 0, chain_id: alpha }, notFoundText('aapl', 0, alpha)],
      [{ ticker: 'AAPL', exchange: 1, chain_id: alpha }, notFoundText('AAPL', 1, alpha)],
      [{ ticker: 'AAPL', exchange: 2, chain_id: alpha }, notFoundText('AAPL', 2, alpha)],
      [{ ticker: 'AAPL', exchange: -7, chain_id: alpha }, notFoundText('AAPL', -7, alpha)],
      [{ ticker: '0700s', exchange: 1, chain_id: alpha }, notFoundText('0700s', 1, alpha)],
      [{ ticker: 'AAPL', exchange: 0, chain_id: 999 }, notFoundText('AAPL', 0, 999)],
      [
        { ticker: 'AAPL', exchange: 0, chain_id: '18446744073709551615' },
        notFoundText('AAPL', 0, '18446744073709551615'),
      ],
      // without chain_id the message names the default chain it was resolved to
      [{ ticker: 'ZZZZ', exchange: 3 }, notFoundText('ZZZZ', 3, defaultChainId)],
    ]
    for (const [query, error] of cases) {
      const reply = await lookup(query)
      expect(reply.status, JSON.stringify(query)).toBe(404)
      expect(reply.body, JSON.stringify(query)).toStrictEqual({ error })
    }
  })

  it('rule 2: an inactive token is not available', async () => {
    const chain = chainWithRouter()
    const listing = listingOf(chain.chainId, '1810')
    listing.isActive = false
    try {
      const reply = await lookup({ ticker: '1810', exchange: 1, chain_id: chain.chainId })
      expect(reply.status).toBe(404)
      expect(reply.body).toStrictEqual({ error: notFoundText('1810', 1, chain.chainId) })
      // not found is not cached: reactivated, it is found at once
      listing.isActive = true
      const found = await lookup({ ticker: '1810', exchange: 1, chain_id: chain.chainId })
      expect(found.status).toBe(200)
      expect(found.headers.get('x-cache')).toBe('MISS')
    } finally {
      listing.isActive = true
    }
  })

  it('rule 3: a missing or empty exchange is {error: "Failed to deserialize query string: cannot parse integer from empty string"}', async () => {
    const error = 'Failed to deserialize query string: cannot parse integer from empty string'
    for (const query of [
      { ticker: 'AAPL' },
      { ticker: 'AAPL', exchange: '' },
      { ticker: 'AAPL', chain_id: 31337 },
      {},
    ]) {
      const reply = await lookup(query)
      expect(reply.status, JSON.stringify(query)).toBe(400)
      expect(reply.body, JSON.stringify(query)).toStrictEqual({ error })
    }
  })

  it.each([
    [{ ticker: 'AAPL', exchange: 'us' }, 'invalid digit found in string'],
    [{ ticker: 'AAPL', exchange: '1.0' }, 'invalid digit found in string'],
    [{ ticker: 'AAPL', exchange: ' 1' }, 'invalid digit found in string'],
    [{ ticker: 'AAPL', exchange: '-' }, 'invalid digit found in string'],
    [{ ticker: 'AAPL', exchange: '2147483648' }, 'number too large to fit in target type'],
    [{ ticker: 'AAPL', exchange: '-2147483649' }, 'number too small to fit in target type'],
    [{ ticker: 'AAPL', exchange: '99999999999x' }, 'number too large to fit in target type'],
    [{ ticker: 'AAPL', exchange: '0', chain_id: '' }, 'cannot parse integer from empty string'],
    [{ ticker: 'AAPL', exchange: '0', chain_id: 'main' }, 'invalid digit found in string'],
    [{ ticker: 'AAPL', exchange: '0', chain_id: '-1' }, 'invalid digit found in string'],
    [
      { ticker: 'AAPL', exchange: '0', chain_id: '18446744073709551616' },
      'number too large to fit in target type',
    ],
    // serde reports the first bad field in query order, before a missing exchange
    [{ ticker: 'AAPL', chain_id: 'x' }, 'invalid digit found in string'],
  ])(
    'a non-numeric or out-of-range integer %o is {error} with Rust ParseIntError text "%s"',
    async (query, reason) => {
      const reply = await lookup(query)
      expect(reply.status).toBe(400)
      expect(reply.body).toStrictEqual({ error: `Failed to deserialize query string: ${reason}` })
    },
  )

  it('a parameter given twice is {error} naming the duplicate field, as serde does', async () => {
    const reply = await lookup([
      ['ticker', 'AAPL'],
      ['exchange', '0'],
      ['exchange', '0'],
    ])
    expect(reply.status).toBe(400)
    expect(reply.body).toStrictEqual({
      error: 'Failed to deserialize query string: duplicate field `exchange`',
    })
  })

  it('a ticker with characters a header cannot carry is looked up and its cache key header percent-encoded', async () => {
    const reply = await lookup({ ticker: 'Ä 100%', exchange: 0 })
    expect(reply.status).toBe(404)
    expect(reply.body.error).toBe(notFoundText('Ä 100%', 0, service().context.defaultChainId))
    expect(reply.headers.get('x-cache-key')).toBe(
      `token_addr:%C3%84%20100%25:0:${service().context.defaultChainId}`,
    )
  })
})
