import { getMarketQuote } from '@stockroute/client/api/actions/getMarketQuote.js'
import {
  getMarketQuotes,
  maxSymbolsPerQuotesRequest,
} from '@stockroute/client/api/actions/getMarketQuotes.js'
import { createServiceClient } from '@stockroute/client/api/createServiceClient.js'
import { ServiceNotFoundError } from '@stockroute/client/api/errors.js'
import { StockrouteError } from '@stockroute/client/domain/errors.js'
import { beforeEach, describe, expect, it } from 'vitest'
import { apiCall, useSandboxService } from '../../helpers/sandboxService.js'

// The service's clock stands still during each test: every request sees the same prices.
let nowMs = Date.now()
const service = useSandboxService({ clock: { now: () => nowMs } })
beforeEach(() => {
  nowMs = Date.now()
})

const usStocks = ['AAPL', 'TSLA', 'NVDA', 'MSFT', 'AMZN']

/**
 * A client whose requests are recorded on their way to the real fetch (counting, not mocking).
 * With `holdUntil`, requests are held until that many have arrived (or 2 s passed) and then all
 * sent, so a batch that fails cannot cancel the others before they are counted.
 */
function recordingClient(holdUntil = 0) {
  const symbolsPerRequest: string[][] = []
  let release: () => void = () => {}
  const released = new Promise<void>((resolve) => {
    release = resolve
    setTimeout(resolve, 2_000).unref()
  })
  const client = createServiceClient({
    baseUrl: service().url,
    credentials: service().credential,
    requestsPerSecond: 1_000,
    fetch: async (input, init) => {
      symbolsPerRequest.push(new URL(String(input)).searchParams.get('symbols')?.split(',') ?? [])
      if (symbolsPerRequest.length >= holdUntil) release()
      await released
      return fetch(input, init)
    },
  })
  return { client, symbolsPerRequest }
}

describe('getMarketQuotes', () => {
  it('one request for up to 30 symbols: the records of the raw reply, in the order asked', async () => {
    const { client, symbolsPerRequest } = recordingClient()
    const asked = ['MSFT', 'AAPL', 'AMZN']
    const raw = await apiCall(service(), '/market/v1/tickers/quotes', {
      credential: service().credential,
      query: { symbols: asked.join(','), market: 'usex' },
    })
    const quotes = await getMarketQuotes(client, { symbols: asked, market: 'usex' })
    expect(symbolsPerRequest).toEqual([asked])
    expect(quotes.map((quote) => quote.symbol)).toEqual(asked)
    expect(quotes.map((quote) => [quote.close, quote.prevClose, quote.volume, quote.turnover])).toEqual(
      raw.body.data.map((record: Record<string, string>) => [
        record.close,
        record.prev_close,
        record.volume,
        record.turnover,
      ]),
    )
    // Each record is the one the single-symbol endpoint gives.
    for (const quote of quotes)
      expect(quote).toEqual(await getMarketQuote(client, { symbol: quote.symbol, market: 'usex' }))
  })

  it('splits into requests of symbolsPerRequest, in order, and concatenates the records', async () => {
    const whole = await getMarketQuotes(recordingClient().client, { symbols: usStocks, market: 'usex' })
    const { client, symbolsPerRequest } = recordingClient()
    const split = await getMarketQuotes(client, { symbols: usStocks, market: 'usex', symbolsPerRequest: 2 })
    expect(symbolsPerRequest).toEqual([['AAPL', 'TSLA'], ['NVDA', 'MSFT'], ['AMZN']])
    expect(split).toEqual(whole)
    expect(split.map((quote) => quote.symbol)).toEqual(usStocks)
  })

  it('45 symbols make 2 requests, of 30 and 15, in order; a batch the service refuses fails the call', async () => {
    expect(maxSymbolsPerQuotesRequest).toBe(30)
    // Only 5 US stocks exist, and a request may not repeat one: 40 of these symbols are unknown.
    const symbols = [...usStocks, ...Array.from({ length: 40 }, (_, index) => `ZZ${index}`)]
    const { client, symbolsPerRequest } = recordingClient(2)
    const error = await getMarketQuotes(client, { symbols, market: 'usex' }).catch(
      (caught: unknown) => caught,
    )
    expect(symbolsPerRequest.map((batch) => batch.length)).toEqual([30, 15])
    expect(symbolsPerRequest.flat()).toEqual(symbols)
    expect(error).toBeInstanceOf(ServiceNotFoundError)
    expect((error as ServiceNotFoundError).shortMessage).toMatch(/"ZZ\d+"/)
  })

  it('30 symbols are one request; none are no request at all', async () => {
    const { client, symbolsPerRequest } = recordingClient()
    expect(await getMarketQuotes(client, { symbols: [], market: 'hkex' })).toEqual([])
    expect(symbolsPerRequest).toEqual([])
    const thirty = Array.from({ length: 30 }, (_, index) => `ZZ${index}`)
    await expect(getMarketQuotes(client, { symbols: thirty, market: 'hkex' })).rejects.toBeInstanceOf(
      ServiceNotFoundError,
    )
    expect(symbolsPerRequest).toEqual([thirty])
  })

  it('refuses symbols it cannot send and batch sizes the service would refuse, before any request', async () => {
    const { client, symbolsPerRequest } = recordingClient()
    await expect(getMarketQuotes(client, { symbols: ['0700,9988'], market: 'hkex' })).rejects.toThrow(
      StockrouteError,
    )
    await expect(getMarketQuotes(client, { symbols: ['0700', ' '], market: 'hkex' })).rejects.toThrow(
      /non-empty ticker/,
    )
    await expect(
      getMarketQuotes(client, { symbols: ['0700'], market: 'hkex', symbolsPerRequest: 31 }),
    ).rejects.toThrow(/from 1 to 30/)
    expect(symbolsPerRequest).toEqual([])
  })

  it('an aborted signal stops every batch', async () => {
    const controller = new AbortController()
    controller.abort(new Error('shutting down'))
    await expect(
      getMarketQuotes(
        recordingClient().client,
        { symbols: usStocks, market: 'usex', symbolsPerRequest: 1 },
        { signal: controller.signal },
      ),
    ).rejects.toThrow('shutting down')
  })
})
