import { tickSize } from '@stockroute/client/domain/tickRules.js'
import { formatPrice, parsePrice } from '@stockroute/client/domain/unitStrings.js'
import { sandboxCatalogue } from '@stockroute/sandbox/catalogue.js'
import { describe, expect, it } from 'vitest'
import { apiCall, useSandboxService } from '../../../helpers/sandboxService.js'

/** The service's clock (fixed, so replies can be compared); requests are signed at it. */
const clock = { ms: Date.UTC(2025, 2, 6, 7, 45, 30) }
const service = useSandboxService({ clock: { now: () => clock.ms }, requestsPerSecond: 10_000 })

function info(symbol: string, query: Record<string, string> | [string, string][] = {}) {
  return apiCall(service(), `/market/v1/tickers/${encodeURIComponent(symbol)}/info`, {
    credential: service().credential,
    timestamp: clock.ms,
    query,
  })
}

describe('GET /market/v1/tickers/{symbol}/info', () => {
  it('returns an HK stock lot_size and spread_table_code, with its codes and names', async () => {
    const reply = await info('0700', { market: 'hkex' })
    expect(reply.status).toBe(200)
    expect(reply.body).toMatchObject({
      code: 0,
      data: {
        symbol: '0700',
        stock_code: '00700',
        name: 'Tencent Holdings Ltd.',
        market: 'hkex',
        exchange: 1,
        exchange_name: 'HKEX',
        currency: 'HKD',
        lot_size: '100',
        spread_table_code: '1',
        share_symbol: null,
      },
    })
    expect((await info('0005', { market: 'hkex' })).body.data.lot_size).toBe('400')
  })

  it('KR stocks have lot 1 and spread table KRX; US stocks lot 1, table 1 and a tick of 0.01', async () => {
    expect((await info('005930', { market: 'krex' })).body.data).toMatchObject({
      exchange: 3,
      currency: 'KRW',
      lot_size: '1',
      spread_table_code: 'KRX',
    })
    expect((await info('AAPL', { market: 'usex' })).body.data).toMatchObject({
      exchange: 0,
      exchange_name: 'USEX',
      currency: 'USD',
      lot_size: '1',
      spread_table_code: '1',
      tick_size: '0.01',
      share_symbol: 'AAPLs',
    })
  })

  it('lot_size and spread_table_code are those of the catalogue, for every stock', async () => {
    for (const stock of sandboxCatalogue) {
      const market = stock.exchange === 0 ? 'usex' : stock.exchange === 1 ? 'hkex' : 'krex'
      const { data } = (await info(stock.ticker, { market })).body
      expect(data.lot_size, stock.ticker).toBe(String(stock.lotSize))
      expect(data.spread_table_code, stock.ticker).toBe(stock.spreadTableCode)
      expect(data.stock_code, stock.ticker).toBe(stock.stockCode)
    }
  })

  it('last_price is the current close and tick_size the tick of its price band', async () => {
    for (const [symbol, market] of [
      ['0700', 'hkex'],
      ['1810', 'hkex'],
      ['000660', 'krex'],
      ['NVDA', 'usex'],
    ] as const) {
      const { data } = (await info(symbol, { market })).body
      const quote = await apiCall(service(), `/market/v1/tickers/${symbol}/quote`, {
        credential: service().credential,
        timestamp: clock.ms,
      })
      expect(data.last_price, symbol).toBe(quote.body.data.close)
      const expected = tickSize({
        market,
        spreadTableCode: data.spread_table_code,
        price: parsePrice(data.last_price),
      })
      expect(data.tick_size, symbol).toBe(formatPrice(expected))
    }
  })

  it('spread_table_code names a table that GET /market/v1/{market}/spread-tables serves', async () => {
    for (const [symbol, market] of [
      ['9988', 'hkex'],
      ['035420', 'krex'],
    ] as const) {
      const { data } = (await info(symbol, { market })).body
      const tables = await apiCall(service(), `/market/v1/${market}/spread-tables`, {
        credential: service().credential,
        timestamp: clock.ms,
      })
      expect(tables.body.data.map((table: { code: string }) => table.code)).toContain(data.spread_table_code)
    }
  })

  it('market is required: 400 naming it', async () => {
    const reply = await info('0700')
    expect(reply.status).toBe(400)
    expect(reply.body).toMatchObject({
      code: 400,
      message: 'Invalid parameter',
      details: 'market: is required',
    })
  })

  it('market must be the symbol market: 400 naming the right one', async () => {
    const reply = await info('0700', { market: 'krex' })
    expect(reply.status).toBe(400)
    expect(reply.body.details).toContain('market=hkex')
  })

  it('rejects an unknown market value with 400', async () => {
    const reply = await info('0700', { market: 'hk' })
    expect(reply.status).toBe(400)
    expect(reply.body.details).toBe('market: must be usex, hkex or krex')
  })

  it('answers an unknown symbol with 404, and a ShareToken ticker with 404 naming its stock', async () => {
    const unknown = await info('9999', { market: 'hkex' })
    expect(unknown.status).toBe(404)
    expect(unknown.body).toMatchObject({ code: 404, message: 'Not found' })
    const share = await info('TSLAs', { market: 'usex' })
    expect(share.status).toBe(404)
    expect(share.body.details).toContain('"TSLA"')
  })

  it('rejects a repeated parameter with 400', async () => {
    const reply = await info('0700', [
      ['market', 'hkex'],
      ['market', 'krex'],
    ])
    expect(reply.status).toBe(400)
    expect(reply.body.details).toContain('market: given more than once')
  })

  it('needs an API key: no key is 401', async () => {
    const reply = await apiCall(service(), '/market/v1/tickers/0700/info', { query: { market: 'hkex' } })
    expect(reply.status).toBe(401)
  })
})
