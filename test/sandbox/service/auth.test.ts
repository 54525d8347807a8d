import { rawQueryOf, signApiKeyRequest } from '@stockroute/client/domain/apiKeySignature.js'
import {
  type ApiCredential,
  type SignedSandboxRequest,
  verifyApiKeyRequest,
} from '@stockroute/sandbox/service/auth/apiKeys.js'
import { describe, expect, it } from 'vitest'
import { chainWithRouter } from '../../helpers/localChains.js'
import { apiCall, useSandboxService } from '../../helpers/sandboxService.js'

const service = useSandboxService({ requestsPerSecond: 1000 })
/** The rate-limited service's clock: it stands still unless a test moves it. */
let slowServiceNowMs = Date.now()
const slowService = useSandboxService({ requestsPerSecond: 2, clock: { now: () => slowServiceNowMs } })
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
  it('accepts a request signed as docs/sandbox.md describes', async () => {
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
    // Signed at the service's own time, which moves only when the test moves it.
    const spreadTables = () =>
      apiCall(slowService(), '/market/v1/hkex/spread-tables', {
        credential: slowService().credential,
        timestamp: slowServiceNowMs,
      })
    const statuses: number[] = []
    let retryAfter: string | null = null
    for (let i = 0; i < 8; i++) {
      const reply = await spreadTables()
      statuses.push(reply.status)
      if (reply.status === 429) {
        retryAfter = reply.headers.get('retry-after')
        expect(reply.body).toMatchObject({ code: 429, message: 'Too many requests' })
      }
    }
    // A burst of twice the rate (2/s) passes, then every request is refused while no time passes.
    expect(statuses).toEqual([200, 200, 200, 200, 429, 429, 429, 429])
    expect(retryAfter).toBe('1')
    expect((await spreadTables()).status).toBe(429)
    // Once the service's clock has moved by Retry-After, the key may send again.
    slowServiceNowMs += Number(retryAfter) * 1000
    expect((await spreadTables()).status).toBe(200)
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

/** A GET as the sandbox's server hands it to the verifier, from the request target as received. */
function receivedRequest(target: string, headers: Record<string, string>): SignedSandboxRequest {
  const url = new URL(target, 'http://sandbox.local')
  return {
    method: 'GET',
    path: url.pathname,
    queryPairs: [...url.searchParams],
    rawQuery: rawQueryOf(target),
    headers,
    body: '',
    params: {},
  }
}

/** Signs `signedQuery` by the rule (the query exactly as sent, sorted by key) and sends `sentQuery`. */
function signedHeaders(credential: ApiCredential, path: string, signedQuery: string, timestamp: number) {
  return {
    'x-api-key': credential.apiKey,
    'x-api-timestamp': String(timestamp),
    'x-api-signature': signApiKeyRequest(credential.apiSecret, {
      timestamp,
      method: 'GET',
      path,
      query: signedQuery,
    }),
  }
}

describe('the signed query is the query exactly as sent, sorted by key', () => {
  const credential: ApiCredential = { apiKey: 'sk_test', apiSecret: 'a'.repeat(64), requestsPerSecond: 10 }
  const credentials = new Map([[credential.apiKey, credential]])
  const path = '/market/v1/tickers/quotes'
  const now = 1_700_000_000_000

  it.each([
    ['a raw comma', 'symbols=AAPL,MSFT&market=usex'],
    ['a percent-encoded comma', 'symbols=AAPL%2CMSFT&market=usex'],
    ['a space sent as +', 'market=usex&symbols=AAPL,+MSFT'],
    ['a repeated key', 'b=2&a=1,2&a=0'],
  ])('accepts %s signed as sent', (_label, query) => {
    const request = receivedRequest(`${path}?${query}`, signedHeaders(credential, path, query, now))
    expect(verifyApiKeyRequest(request, credentials, now, false).credential).toBe(credential)
  })

  it('refuses a raw comma signed as its re-encoding, and the reverse', () => {
    const raw = 'symbols=AAPL,MSFT&market=usex'
    const encoded = 'symbols=AAPL%2CMSFT&market=usex'
    const rawSignedEncoded = receivedRequest(`${path}?${raw}`, signedHeaders(credential, path, encoded, now))
    expect(() => verifyApiKeyRequest(rawSignedEncoded, credentials, now, false)).toThrow('Invalid signature')
    const encodedSignedRaw = receivedRequest(`${path}?${encoded}`, signedHeaders(credential, path, raw, now))
    expect(() => verifyApiKeyRequest(encodedSignedRaw, credentials, now, false)).toThrow('Invalid signature')
  })

  it('refuses a query tampered with after signing', () => {
    const signed = 'symbols=AAPL,MSFT&market=usex'
    for (const sent of [
      'symbols=AAPL,TSLA&market=usex',
      'symbols=AAPL,MSFT&market=usex&page=2',
      'symbols=AAPL,MSFT',
      'symbols=AAPL,MSFT&market=usex&',
    ]) {
      const request = receivedRequest(`${path}?${sent}`, signedHeaders(credential, path, signed, now))
      expect(() => verifyApiKeyRequest(request, credentials, now, false)).toThrow('Invalid signature')
    }
  })

  it('over HTTP, accepts %2C signed as sent and refuses the query tampered with', async () => {
    const { credential: live } = service()
    const query = 'symbols=AAPL%2CMSFT&market=usex'
    const headers = signedHeaders(live, path, query, Date.now())
    const accepted = await fetch(`${service().url}${path}?${query}`, { headers })
    expect(accepted.status).toBe(200)
    const tampered = await fetch(`${service().url}${path}?symbols=AAPL%2CTSLA&market=usex`, { headers })
    expect(tampered.status).toBe(401)
    expect(await tampered.json()).toMatchObject({ code: 401, message: 'Invalid signature' })
  })

  it('over HTTP, accepts symbols=AAPL,MSFT (raw comma) signed as sent', async () => {
    const { credential: live } = service()
    const query = 'symbols=AAPL,MSFT&market=usex'
    const headers = signedHeaders(live, path, query, Date.now())
    const accepted = await fetch(`${service().url}${path}?${query}`, { headers })
    expect(accepted.status).toBe(200)
    // Signed re-encoded, sent raw: not the query sent.
    const reencoded = signedHeaders(live, path, 'symbols=AAPL%2CMSFT&market=usex', Date.now())
    expect((await fetch(`${service().url}${path}?${query}`, { headers: reencoded })).status).toBe(401)
  })
})
