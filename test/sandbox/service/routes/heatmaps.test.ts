import type { ExchangeCode } from '@stockroute/client/domain/markets.js'
import { sandboxCatalogue } from '@stockroute/sandbox/catalogue.js'
import type { Listing } from '@stockroute/sandbox/service/contextTypes.js'
import { beforeAll, describe, expect, it } from 'vitest'
import { holdPricesAtReference, setLastPrices } from '../../../helpers/pinnedPrices.js'
import { referenceMarketCaps } from '../../../helpers/referenceMarketCaps.js'
import { apiCall, useSandboxService } from '../../../helpers/sandboxService.js'

// The market is held at the catalogue's reference prices, so every market cap is known by hand
// (test/helpers/referenceMarketCaps.ts).
const service = useSandboxService()
beforeAll(() => {
  holdPricesAtReference(service().context.prices)
})

type HeatmapEntry = { symbol: string; company_name: string; market_cap: number; total_shares: number }

function heatmapOf(query: Record<string, string | number>) {
  return apiCall<{ code: number; data: HeatmapEntry[]; details?: string }>(
    service(),
    '/api/v1/tickers/heatmaps',
    {
      query,
    },
  )
}

/** The hand-worked heatmap of `exchange`, with each stock's name and share count from the catalogue. */
function expectedFor(exchange: ExchangeCode): HeatmapEntry[] {
  return referenceMarketCaps[exchange].map(({ symbol, marketCap }) => {
    const stock = sandboxCatalogue.find((candidate) => candidate.ticker === symbol)
    if (!stock) throw new Error(`${symbol} is not in the catalogue`)
    return { symbol, company_name: stock.name, market_cap: marketCap, total_shares: stock.totalShares }
  })
}

/** The stock's StockToken listings on every chain of this file's service. */
function listingsOf(ticker: string): Listing[] {
  return [...service().context.listings.values()]
    .flat()
    .filter((l) => l.kind === 'stock' && l.ticker === ticker)
}

describe('GET /api/v1/tickers/heatmaps', () => {
  it.each<[ExchangeCode, string]>([
    [0, 'US'],
    [1, 'Hong Kong'],
    [3, 'South Korea'],
  ])(
    'exchange %i (%s): every listed stock, market_cap = total_shares × last price, largest first',
    async (exchange) => {
      const reply = await heatmapOf({ exchange })
      expect(reply.status).toBe(200)
      expect(reply.body.code).toBe(0)
      expect(reply.body.data).toEqual(expectedFor(exchange))
      expect(reply.body.data.length).toBeGreaterThan(0)
    },
  )

  it('market_cap is truncated to a whole unit of the market currency (by hand)', async () => {
    const restore = setLastPrices(service().context.prices, { AAPL: '227.48999999', '000660': '178500.5' })
    try {
      const capOf = async (exchange: ExchangeCode, symbol: string) =>
        (await heatmapOf({ exchange })).body.data.find((entry) => entry.symbol === symbol)?.market_cap
      // 15,204,137,000 × 227.48999999 = 15,204,137,000 × 227.49 − 152.04137
      //   = 3,458,789,126,130 − 152.04137 = 3,458,789,125,977.95863 → 3,458,789,125,977
      expect(await capOf(0, 'AAPL')).toBe(3_458_789_125_977)
      // 728,002,365 × 178,500.5 = 129,948,422,152,500 + 364,001,182.5 = 129,948,786,153,682.5
      //   → 129,948,786,153,682
      expect(await capOf(3, '000660')).toBe(129_948_786_153_682)
    } finally {
      restore()
    }
  })

  it('market_cap is an integer in the market currency, total_shares a number', async () => {
    const [entry] = (await heatmapOf({ exchange: 3 })).body.data
    expect(Number.isInteger(entry?.market_cap)).toBe(true)
    expect(typeof entry?.total_shares).toBe('number')
    // Samsung at tens of thousands of KRW: far above its USD value, so no currency conversion.
    expect(entry?.market_cap).toBeGreaterThan(5_969_782_550 * 1000)
  })

  it('a renamed ticker shows its new symbol (the default chain decides)', async () => {
    const listings = listingsOf('TSLA')
    const defaultListing = listings.find((l) => l.chainId === service().context.defaultChainId)
    if (!defaultListing) throw new Error('TSLA not listed on the default chain')
    defaultListing.ticker = 'TSLQ'
    try {
      const symbols = (await heatmapOf({ exchange: 0 })).body.data.map((e) => e.symbol)
      expect(symbols).toContain('TSLQ')
      expect(symbols).not.toContain('TSLA')
    } finally {
      defaultListing.ticker = 'TSLA'
    }
  })

  it('a stock delisted on every chain disappears; delisted on one chain only, it stays', async () => {
    const listings = listingsOf('MSFT')
    expect(listings.length).toBeGreaterThan(1)
    try {
      ;(listings[0] as Listing).isActive = false
      expect((await heatmapOf({ exchange: 0 })).body.data.map((e) => e.symbol)).toContain('MSFT')
      for (const listing of listings) listing.isActive = false
      expect((await heatmapOf({ exchange: 0 })).body.data.map((e) => e.symbol)).not.toContain('MSFT')
    } finally {
      for (const listing of listings) listing.isActive = true
    }
  })

  it('needs no credentials', async () => {
    expect((await apiCall(service(), '/api/v1/tickers/heatmaps', { query: { exchange: 0 } })).status).toBe(
      200,
    )
  })

  it.each([
    ['missing', {}],
    ['not an exchange code', { exchange: 2 }],
    ['not a number', { exchange: 'us' }],
  ])('exchange %s is a 400 naming it', async (_name, query) => {
    const reply = await heatmapOf(query)
    expect(reply.status).toBe(400)
    expect(reply.body.details).toContain('exchange')
  })
})
