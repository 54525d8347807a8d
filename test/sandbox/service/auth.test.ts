import { describe, expect, it } from 'vitest'
import { signApiKeyRequest } from '../../../src/domain/apiKeySignature.js'
import { chainWithRouter } from '../../helpers/localChains.js'
import { apiCall, useSandboxService } from '../../helpers/sandboxService.js'

const service = useSandboxService({ requestsPerSecond: 1000 })
const slowService = useSandboxService({ requestsPerSecond: 2 })
const maker = '0x26c8F94d051A3b04B294993fB6b980daacB8CFCC'

function quoteQuery() {
  const chain = chainWithRouter()
  return {
    ticker: 'AAPL',
    exchange: 0,
    is_buy: true,
    chain_id: chain.chainId,
    asset: chain.defaultAsset.address,
    amount_in: '500',
  }
}

describe('API key + signature (institution endpoints)', () => {
  it('accepts a request signed as DESIGN.md describes', async () => {
    const reply = await apiCall(service(), '/api/v1/router/quote', {
      credential: service().credential,
      query: quoteQuery(),
    })
    expect(reply.status).toBe(200)
  })

  it('refuses a request without X-API-Key with 401 {code, message, details}', async () => {
    const reply = await apiCall(service(), '/api/v1/router/quote', { query: quoteQuery() })
    expect(reply.status).toBe(401)
    expect(reply.body).toMatchObject({ code: 401, message: 'Missing API key' })
    expect(typeof reply.body.details).toBe('string')
  })

  it('refuses an unknown API key', async () => {
    const credential = { ...service().credential, apiKey: 'sk_unknown' }
    const reply = await apiCall(service(), '/api/v1/router/quote', { credential, query: quoteQuery() })
    expect(reply.body).toMatchObject({ code: 401, message: 'Invalid API key' })
  })

  it('refuses a signature made with another secret', async () => {
    const credential = { ...service().credential, apiSecret: 'f'.repeat(64) }
    const reply = await apiCall(service(), '/api/v1/router/quote', { credential, query: quoteQuery() })
    expect(reply.body).toMatchObject({ code: 401, message: 'Invalid signature' })
  })

  it('refuses a query changed after signing', async () => {
    const { credential } = service()
    const timestamp = Date.now()
    const query = quoteQuery()
    const signature = signApiKeyRequest(credential.apiSecret, {
      timestamp,
      method: 'GET',
      path: '/api/v1/router/quote',
      query: Object.entries(query).map(([k, v]) => [k, String(v)]),
    })
    const reply = await apiCall(service(), '/api/v1/router/quote', {
      query: { ...query, amount_in: '5000' },
      headers: {
        'x-api-key': credential.apiKey,
        'x-api-timestamp': String(timestamp),
        'x-api-signature': signature,
      },
    })
    expect(reply.body).toMatchObject({ code: 401, message: 'Invalid signature' })
  })

  it.each([
    ['31 s behind', -31_000],
    ['31 s ahead', 31_000],
  ])('refuses a timestamp %s the server clock', async (_label, skew) => {
    const reply = await apiCall(service(), '/api/v1/router/quote', {
      credential: service().credential,
      query: quoteQuery(),
      timestamp: Date.now() + skew,
    })
    expect(reply.body).toMatchObject({ code: 401, message: 'Timestamp expired' })
  })

  it('accepts a timestamp 25 s off, inside the ±30 s window', async () => {
    const reply = await apiCall(service(), '/api/v1/router/quote', {
      credential: service().credential,
      query: quoteQuery(),
      timestamp: Date.now() - 25_000,
    })
    expect(reply.status).toBe(200)
  })

  it('sends a Date header clients can correct their clock from', async () => {
    const reply = await apiCall(service(), '/api/v1/chains')
    const date = Date.parse(reply.headers.get('date') ?? '')
    expect(Math.abs(date - Date.now())).toBeLessThan(5_000)
  })
})

describe('maker endpoints', () => {
  it('require X-Maker-Addr with an API key', async () => {
    const reply = await apiCall(service(), '/api/v1/positions', { credential: service().credential })
    expect(reply.body).toMatchObject({ code: 401, message: 'Missing maker address' })
  })

  it('accept an API key with X-Maker-Addr', async () => {
    const reply = await apiCall(service(), '/api/v1/positions', {
      credential: service().credential,
      makerAddress: maker,
    })
    expect(reply.status).toBe(200)
  })

  it('refuse an X-Maker-Addr that is not the one signed', async () => {
    const { credential } = service()
    const timestamp = Date.now()
    const signature = signApiKeyRequest(credential.apiSecret, {
      timestamp,
      method: 'GET',
      path: '/api/v1/positions',
      query: [],
      makerAddress: maker,
    })
    const reply = await apiCall(service(), '/api/v1/positions', {
      headers: {
        'x-api-key': credential.apiKey,
        'x-api-timestamp': String(timestamp),
        'x-api-signature': signature,
        'x-maker-addr': '0x0000000000000000000000000000000000000001',
      },
    })
    expect(reply.body).toMatchObject({ code: 401, message: 'Invalid signature' })
  })

  it('refuse a malformed X-Maker-Addr with 400', async () => {
    const reply = await apiCall(service(), '/api/v1/positions', {
      credential: service().credential,
      makerAddress: '0x12',
    })
    expect(reply.status).toBe(400)
  })
})

describe('rate limiting per API key', () => {
  it('answers 429 Too many requests with Retry-After once the key exceeds its rate, then recovers', async () => {
    const statuses: number[] = []
    let retryAfter: string | null = null
    for (let i = 0; i < 8; i++) {
      const reply = await apiCall(slowService(), '/market/v1/hkex/spread-tables', {
        credential: slowService().credential,
      })
      statuses.push(reply.status)
      if (reply.status === 429) {
        retryAfter = reply.headers.get('retry-after')
        expect(reply.body).toMatchObject({ code: 429, message: 'Too many requests' })
      }
    }
    expect(statuses.slice(0, 4).every((s) => s !== 429)).toBe(true)
    expect(statuses).toContain(429)
    expect(Number(retryAfter)).toBeGreaterThanOrEqual(1)
    await new Promise((resolve) => setTimeout(resolve, Number(retryAfter) * 1000))
    const after = await apiCall(slowService(), '/market/v1/hkex/spread-tables', {
      credential: slowService().credential,
    })
    expect(after.status).not.toBe(429)
  })

  it('never limits public endpoints', async () => {
    const replies = await Promise.all(
      Array.from({ length: 30 }, () => apiCall(slowService(), '/api/v1/chains')),
    )
    expect(replies.every((r) => r.status !== 429)).toBe(true)
  })
})

describe('unknown routes', () => {
  it('answer 404 {code, message, details}; a known path with another method 405', async () => {
    expect((await apiCall(service(), '/api/v1/nope')).body).toMatchObject({ code: 404, message: 'Not found' })
    expect((await apiCall(service(), '/api/v1/chains', { method: 'POST', body: '{}' })).status).toBe(405)
  })
})
