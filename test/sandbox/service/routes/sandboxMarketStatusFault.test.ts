import { afterEach, describe, expect, it } from 'vitest'
import { apiCall, useSandboxService } from '../../../helpers/sandboxService.js'

// The TEST-ONLY market-status switch: a stock's market quotes carry a forced `status` (the
// reference shows only `normal`) until cleared, so that clients can be tested against a halted stock.

const service = useSandboxService({ faults: true })
const plainService = useSandboxService()

const forceStatus = (body: unknown, on = service) =>
  apiCall(on(), '/sandbox/v1/faults/market-status', { body })
const quoteOf = (symbol: string) =>
  apiCall(service(), `/market/v1/tickers/${symbol}/quote`, { credential: service().credential })
const quotesOf = (symbols: string, market: string) =>
  apiCall(service(), '/market/v1/tickers/quotes', {
    query: { symbols, market },
    credential: service().credential,
  })

afterEach(async () => {
  await forceStatus({ symbol: '0700', status: null })
})

describe('POST/GET /sandbox/v1/faults/market-status', () => {
  it("forces a stock's status in single and batch market quotes until cleared, others staying normal", async () => {
    expect((await quoteOf('0700')).body.data.status).toBe('normal')
    const set = await forceStatus({ symbol: '0700', status: 'halted' })
    expect(set.status).toBe(200)
    expect(set.body).toEqual({ code: 0, data: { statuses: { '0700': 'halted' } } })
    expect((await quoteOf('0700')).body.data.status).toBe('halted')
    const batch = await quotesOf('0700,9988', 'hkex')
    expect(
      batch.body.data.map((quote: { symbol: string; status: string }) => [quote.symbol, quote.status]),
    ).toEqual([
      ['0700', 'halted'],
      ['9988', 'normal'],
    ])
    const listed = await apiCall(service(), '/sandbox/v1/faults/market-status')
    expect(listed.body.data).toEqual({ statuses: { '0700': 'halted' } })

    const cleared = await forceStatus({ symbol: '0700', status: null })
    expect(cleared.body.data).toEqual({ statuses: {} })
    expect((await quoteOf('0700')).body.data.status).toBe('normal')
  })

  it('refuses an unknown symbol and a malformed body, naming the fix', async () => {
    const unknown = await forceStatus({ symbol: 'NOPE', status: 'halted' })
    expect(unknown.status).toBe(400)
    expect(unknown.body.details).toMatch(/^symbol: no stock has the symbol "NOPE"/)
    const share = await forceStatus({ symbol: 'AAPLs', status: 'halted' })
    expect(share.status).toBe(400)
    expect(share.body.details).toMatch(/ShareToken ticker; market data is quoted for its stock "AAPL"/)
    const malformed = await forceStatus({ symbol: '0700' })
    expect(malformed.status).toBe(400)
    expect(malformed.body.details).toMatch(/status/)
    expect((await forceStatus('not json')).body.details).toMatch(/not valid JSON/)
  })

  it('answers 404 unless the service was started with faults: true', async () => {
    const reply = await forceStatus({ symbol: '0700', status: 'halted' }, plainService)
    expect(reply.status).toBe(404)
    expect(reply.body.details).toBe(
      'the fault switch is disabled: start the sandbox service with faults: true (tests only)',
    )
  })
})
