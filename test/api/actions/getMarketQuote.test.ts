import {
  getMarketQuote,
  type MarketQuote,
  priceOrNull,
} from '@stockroute/client/api/actions/getMarketQuote.js'
import { createServiceClient } from '@stockroute/client/api/createServiceClient.js'
import {
  ServiceAuthError,
  ServiceBadRequestError,
  ServiceNotFoundError,
} from '@stockroute/client/api/errors.js'
import { parsePrice } from '@stockroute/client/domain/unitStrings.js'
import { beforeEach, describe, expect, it } from 'vitest'
import { apiCall, useSandboxService } from '../../helpers/sandboxService.js'

// The service's clock stands still during each test, so the simulator quotes the same prices to
// the action and to the raw request it is compared with.
let nowMs = Date.now()
const service = useSandboxService({ clock: { now: () => nowMs } })
beforeEach(() => {
  nowMs = Date.now()
})
const client = () => createServiceClient({ baseUrl: service().url, credentials: service().credential })

/** The record as the reply has it, converted field by field. */
function expectedQuote(record: Record<string, string>): MarketQuote {
  const text = (key: string) => {
    const value = record[key]
    if (value === undefined) throw new Error(`the reply has no ${key}`)
    return value
  }
  return {
    symbol: text('symbol'),
    status: text('status'),
    name: text('name'),
    market: text('market'),
    close: text('close'),
    prevClose: text('prev_close'),
    open: text('open'),
    high: text('high'),
    low: text('low'),
    volume: text('volume'),
    turnover: text('turnover'),
    prices: {
      close: parsePrice(text('close')),
      prevClose: parsePrice(text('prev_close')),
      open: parsePrice(text('open')),
      high: parsePrice(text('high')),
      low: parsePrice(text('low')),
    },
  }
}

describe('getMarketQuote', () => {
  it.each([
    ['0700', 'hkex'],
    ['AAPL', 'usex'],
    ['005930', 'krex'],
  ] as const)(
    '%s on %s: the signed request returns the reply, prices also as Price',
    async (symbol, market) => {
      const raw = await apiCall(service(), `/market/v1/tickers/${symbol}/quote`, {
        credential: service().credential,
        query: { market },
      })
      expect(raw.status).toBe(200)
      const quote = await getMarketQuote(client(), { symbol, market })
      expect(quote).toEqual(expectedQuote(raw.body.data))
      expect(quote).toEqual(expectedQuote(service().context.prices.marketQuote(symbol, market, nowMs) ?? {}))
      expect(quote.prices.low).not.toBeNull()
      expect((quote.prices.low ?? 0n) <= (quote.prices.high ?? 0n)).toBe(true)
    },
  )

  it('market is optional', async () => {
    const quote = await getMarketQuote(client(), { symbol: '9988' })
    expect(quote.market).toBe('hkex')
    expect(quote.name).toBe('Alibaba Group Holding Ltd.')
  })

  it('says what the service refused: another market, an unknown symbol, a missing key', async () => {
    const wrongMarket = await getMarketQuote(client(), { symbol: '0700', market: 'usex' }).catch(
      (e: unknown) => e,
    )
    expect(wrongMarket).toBeInstanceOf(ServiceBadRequestError)
    expect((wrongMarket as ServiceBadRequestError).shortMessage).toMatch(/0700.*trades on hkex/)
    await expect(getMarketQuote(client(), { symbol: 'aapl' })).rejects.toBeInstanceOf(ServiceNotFoundError)
    const keyless = createServiceClient({ baseUrl: service().url })
    await expect(getMarketQuote(keyless, { symbol: 'AAPL' })).rejects.toBeInstanceOf(ServiceAuthError)
  })
})

describe('priceOrNull', () => {
  it('keeps exact prices and refuses what a Price cannot hold exactly', () => {
    expect(priceOrNull('418.6')).toBe(41_860_000_000n)
    expect(priceOrNull('56300')).toBe(5_630_000_000_000n)
    expect(priceOrNull('0.123456789')).toBeNull()
    expect(priceOrNull('-1')).toBeNull()
  })
})
