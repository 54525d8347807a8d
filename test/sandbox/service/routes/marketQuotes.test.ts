import { describe, expect, it } from 'vitest'
import { apiCall, useSandboxService } from '../../../helpers/sandboxService.js'

/** The service's clock (fixed, so replies can be compared); requests are signed at it. */
const clock = { ms: Date.UTC(2025, 2, 5, 3, 12, 45) }
const service = useSandboxService({ clock: { now: () => clock.ms }, requestsPerSecond: 10_000 })

function quotes(query: Record<string, string> | [string, string][]) {
  return apiCall(service(), '/market/v1/tickers/quotes', {
    credential: service().credential,
    timestamp: clock.ms,
    query,
  })
}

const usSymbols = ['AAPL', 'TSLA', 'NVDA', 'MSFT', 'AMZN']

describe('GET /market/v1/tickers/quotes', () => {
  it('answers {code: 0, data: [record]} with one record per symbol, in the order asked', async () => {
    const reply = await quotes({ symbols: 'NVDA,AAPL,MSFT', market: 'usex' })
    expect(reply.status).toBe(200)
    expect(reply.body.code).toBe(0)
    expect(reply.body.data.map((record: { symbol: string }) => record.symbol)).toEqual([
      'NVDA',
      'AAPL',
      'MSFT',
    ])
    for (const record of reply.body.data) {
      expect(record).toMatchObject({ status: 'normal', market: 'usex' })
    }
  })

  it('each record equals the single quote of that symbol at the same time', async () => {
    for (const [market, symbols] of [
      ['usex', usSymbols],
      ['hkex', ['0700', '9988', '0005', '1810']],
      ['krex', ['005930', '000660', '035420']],
    ] as const) {
      const batch = await quotes({ symbols: symbols.join(','), market })
      expect(batch.status).toBe(200)
      for (const [index, symbol] of symbols.entries()) {
        const single = await apiCall(service(), `/market/v1/tickers/${symbol}/quote`, {
          credential: service().credential,
          timestamp: clock.ms,
        })
        expect(batch.body.data[index]).toEqual(single.body.data)
      }
    }
  })

  it('symbols is required: 400 naming it', async () => {
    const reply = await quotes({ market: 'usex' })
    expect(reply.status).toBe(400)
    expect(reply.body).toMatchObject({
      code: 400,
      message: 'Invalid parameter',
      details: 'symbols: is required',
    })
  })

  it('market is required and must be usex, hkex or krex: 400 naming it', async () => {
    const missing = await quotes({ symbols: 'AAPL' })
    expect(missing.status).toBe(400)
    expect(missing.body.details).toBe('market: is required')
    const wrong = await quotes({ symbols: 'AAPL', market: 'USEX' })
    expect(wrong.status).toBe(400)
    expect(wrong.body.details).toBe('market: must be usex, hkex or krex')
  })

  it('rejects an empty symbols list with 400', async () => {
    const reply = await quotes({ symbols: '', market: 'usex' })
    expect(reply.status).toBe(400)
    expect(reply.body.details).toContain('symbols: must not be empty')
  })

  it('rejects more than 30 symbols with 400 that names the limit and says to split the request', async () => {
    const symbols = Array.from({ length: 31 }, (_, index) => `S${index}`)
    const reply = await quotes({ symbols: symbols.join(','), market: 'usex' })
    expect(reply.status).toBe(400)
    expect(reply.body).toMatchObject({ code: 400, message: 'Invalid parameter' })
    expect(reply.body.details).toContain('31 given, at most 30')
    expect(reply.body.details).toContain('split')
  })

  it('accepts exactly 30 symbols (the limit is inclusive)', async () => {
    // The catalogue has 5 US stocks: 30 distinct symbols pass the limit and fail later, on the unknown ones.
    const symbols = [...usSymbols, ...Array.from({ length: 25 }, (_, index) => `UNKNOWN${index}`)]
    const reply = await quotes({ symbols: symbols.join(','), market: 'usex' })
    expect(reply.status).toBe(404)
    expect(reply.body.details).toContain('"UNKNOWN0"')
  })

  it('every symbol must belong to the given market: 400 naming the offending symbols and their markets', async () => {
    const reply = await quotes({ symbols: 'AAPL,0700,TSLA,005930', market: 'usex' })
    expect(reply.status).toBe(400)
    expect(reply.body.details).toContain('market=usex')
    expect(reply.body.details).toContain('"0700" (hkex)')
    expect(reply.body.details).toContain('"005930" (krex)')
    expect(reply.body.details).not.toContain('"AAPL"')
    expect(reply.body.details).toContain('one request per market')
  })

  it('rejects a symbol given twice with 400 naming it', async () => {
    const reply = await quotes({ symbols: 'AAPL,TSLA,AAPL', market: 'usex' })
    expect(reply.status).toBe(400)
    expect(reply.body.details).toContain('"AAPL" given more than once')
  })

  it('rejects an empty item (a stray comma) with 400 naming its position', async () => {
    for (const symbols of ['AAPL,,TSLA', 'AAPL,', ',AAPL']) {
      const reply = await quotes({ symbols, market: 'usex' })
      expect(reply.status, symbols).toBe(400)
      expect(reply.body.details, symbols).toMatch(/^symbols: item \d+ of \d+ is empty/)
    }
  })

  it('ignores spaces around items', async () => {
    const reply = await quotes({ symbols: ' AAPL , TSLA', market: 'usex' })
    expect(reply.status).toBe(200)
    expect(reply.body.data.map((record: { symbol: string }) => record.symbol)).toEqual(['AAPL', 'TSLA'])
  })

  it('answers unknown symbols with 404 naming every one of them', async () => {
    const reply = await quotes({ symbols: 'AAPL,ZZZ,aapl,AAPLs', market: 'usex' })
    expect(reply.status).toBe(404)
    expect(reply.body).toMatchObject({ code: 404, message: 'Not found' })
    for (const name of ['"ZZZ"', '"aapl"', '"AAPLs"']) expect(reply.body.details).toContain(name)
    expect(reply.body.details).not.toContain('"AAPL"')
  })

  it('rejects a repeated parameter with 400', async () => {
    const reply = await quotes([
      ['symbols', 'AAPL'],
      ['symbols', 'TSLA'],
      ['market', 'usex'],
    ])
    expect(reply.status).toBe(400)
    expect(reply.body.details).toContain('symbols: given more than once')
  })

  it('needs an institution key: no key is 401', async () => {
    const reply = await apiCall(service(), '/market/v1/tickers/quotes', {
      query: { symbols: 'AAPL', market: 'usex' },
    })
    expect(reply.status).toBe(401)
    expect(reply.body).toMatchObject({ code: 401 })
  })
})
