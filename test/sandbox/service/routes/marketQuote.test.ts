import { isOnTick } from '@stockroute/client/domain/tickRules.js'
import { parsePrice } from '@stockroute/client/domain/unitStrings.js'
import { sandboxCatalogue } from '@stockroute/sandbox/catalogue.js'
import { describe, expect, it } from 'vitest'
import { type ApiCallOptions, apiCall, useSandboxService } from '../../../helpers/sandboxService.js'

/** The service's clock (fixed, so replies can be compared with the simulator); requests are signed at it. */
const clock = { ms: Date.UTC(2025, 2, 3, 14, 30, 7) }
const service = useSandboxService({ clock: { now: () => clock.ms }, requestsPerSecond: 10_000 })
/** A second service whose clock only moves forward (its rate limiter must never see time go back). */
const travel = { ms: Date.UTC(2025, 2, 3, 8, 0, 0) }
const travelling = useSandboxService({ clock: { now: () => travel.ms }, requestsPerSecond: 10_000 })

function quote(
  symbol: string,
  options: Pick<ApiCallOptions, 'query' | 'credential'> = {},
  on = service,
  at = clock,
) {
  return apiCall(on(), `/market/v1/tickers/${encodeURIComponent(symbol)}/quote`, {
    credential: on().credential,
    timestamp: at.ms,
    ...options,
  })
}

const recordFields = [
  'symbol',
  'status',
  'close',
  'prev_close',
  'name',
  'market',
  'open',
  'high',
  'low',
  'volume',
  'turnover',
]

describe('GET /market/v1/tickers/{symbol}/quote', () => {
  it('answers {code: 0, data} with exactly the fields of the market quote record', async () => {
    const reply = await quote('0700')
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe(0)
    expect(Object.keys(reply.body.data).sort()).toEqual([...recordFields].sort())
    expect(reply.body.data).toMatchObject({
      symbol: '0700',
      status: 'normal',
      name: 'Tencent Holdings Ltd.',
      market: 'hkex',
    })
    for (const field of ['close', 'prev_close', 'open', 'high', 'low', 'volume', 'turnover']) {
      expect(reply.body.data[field], field).toMatch(/^\d+(\.\d+)?$/)
    }
  })

  it('serves the price simulator at the service clock', async () => {
    for (const stock of sandboxCatalogue) {
      const reply = await quote(stock.ticker)
      const market = reply.body.data.market
      expect(reply.body.data).toEqual(service().context.prices.marketQuote(stock.ticker, market, clock.ms))
    }
  })

  it('prices lie on the market tick grid and low <= open, close <= high', async () => {
    for (const stock of sandboxCatalogue) {
      const { data } = (await quote(stock.ticker)).body
      const [open, high, low, close] = [data.open, data.high, data.low, data.close].map(parsePrice)
      for (const price of [data.open, data.high, data.low, data.close].map(parsePrice)) {
        expect(isOnTick({ market: data.market, spreadTableCode: stock.spreadTableCode, price })).toBe(true)
      }
      expect(low).toBeLessThanOrEqual(open as bigint)
      expect(low).toBeLessThanOrEqual(close as bigint)
      expect(high).toBeGreaterThanOrEqual(open as bigint)
      expect(high).toBeGreaterThanOrEqual(close as bigint)
    }
  })

  it('moves with the clock; prev_close is the previous UTC day close', async () => {
    const aapl = async () => (await quote('AAPL', {}, travelling, travel)).body.data
    const morning = await aapl()
    travel.ms += 3 * 3_600_000
    const later = await aapl()
    expect(later.close).not.toBe(morning.close)
    expect(BigInt(later.volume)).toBeGreaterThan(BigInt(morning.volume))
    expect(later.prev_close).toBe(morning.prev_close)
    travel.ms = Date.UTC(2025, 2, 3, 23, 59, 59)
    const lastSecond = await aapl()
    travel.ms = Date.UTC(2025, 2, 4, 10, 0, 0)
    const nextDay = await aapl()
    expect(nextDay.prev_close).toBe(lastSecond.close)
    expect(nextDay.open).toBe(lastSecond.close)
    expect(BigInt(nextDay.volume)).toBeLessThan(BigInt(lastSecond.volume))
  })

  it('accepts an optional market equal to the symbol market', async () => {
    const reply = await quote('005930', { query: { market: 'krex' } })
    expect(reply.status).toBe(200)
    expect(reply.body.data.market).toBe('krex')
  })

  it('rejects a market that is not the symbol market with 400 naming the right one', async () => {
    const reply = await quote('005930', { query: { market: 'hkex' } })
    expect(reply.status).toBe(400)
    expect(reply.body).toMatchObject({ code: 400, message: 'Invalid parameter' })
    expect(reply.body.details).toContain('market=krex')
  })

  it('rejects an unknown market value with 400', async () => {
    const reply = await quote('AAPL', { query: { market: 'nyse' } })
    expect(reply.status).toBe(400)
    expect(reply.body.details).toBe('market: must be usex, hkex or krex')
  })

  it('answers an unknown symbol with 404 {code, message, details}', async () => {
    const reply = await quote('ZZZZ')
    expect(reply.status).toBe(404)
    expect(reply.body).toMatchObject({ code: 404, message: 'Not found' })
    expect(reply.body.details).toContain('"ZZZZ"')
  })

  it('symbols are case-sensitive: a lowercase ticker is 404 suggesting the right one', async () => {
    const reply = await quote('aapl')
    expect(reply.status).toBe(404)
    expect(reply.body.details).toContain('did you mean "AAPL"')
  })

  it('a ShareToken ticker is 404 pointing to its stock', async () => {
    const reply = await quote('AAPLs')
    expect(reply.status).toBe(404)
    expect(reply.body.details).toContain('ShareToken')
    expect(reply.body.details).toContain('"AAPL"')
  })

  it('rejects a repeated parameter with 400', async () => {
    const reply = await quote('AAPL', {
      query: [
        ['market', 'usex'],
        ['market', 'usex'],
      ],
    })
    expect(reply.status).toBe(400)
    expect(reply.body.details).toContain('market: given more than once')
  })

  it('needs an institution key: no key is 401, a wrong signature is 401', async () => {
    const anonymous = await apiCall(service(), '/market/v1/tickers/AAPL/quote')
    expect(anonymous.status).toBe(401)
    expect(anonymous.body).toMatchObject({ code: 401, message: 'Missing API key' })
    const forged = await apiCall(service(), '/market/v1/tickers/AAPL/quote', {
      credential: { ...service().credential, apiSecret: 'not-the-secret' },
      timestamp: clock.ms,
    })
    expect(forged.status).toBe(401)
  })
})
