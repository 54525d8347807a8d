import { getHeatmaps } from '@stockroute/client/api/actions/getHeatmaps.js'
import { createServiceClient } from '@stockroute/client/api/createServiceClient.js'
import { ServiceBadRequestError } from '@stockroute/client/api/errors.js'
import type { ExchangeCode } from '@stockroute/client/domain/markets.js'
import { parsePrice } from '@stockroute/client/domain/unitStrings.js'
import { sandboxCatalogue } from '@stockroute/sandbox/catalogue.js'
import { beforeEach, describe, expect, it } from 'vitest'
import { apiCall, useSandboxService } from '../../helpers/sandboxService.js'

// The service's clock stands still during each test, so market caps are the same in both requests.
let nowMs = Date.now()
const service = useSandboxService({ clock: { now: () => nowMs } })
beforeEach(() => {
  nowMs = Date.now()
})
const client = () => createServiceClient({ baseUrl: service().url })

describe('getHeatmaps', () => {
  it.each([0, 1, 3] as const)(
    'exchange %i: the raw reply, market caps as bigint, largest first',
    async (exchange) => {
      const raw = await apiCall(service(), '/api/v1/tickers/heatmaps', { query: { exchange } })
      expect(raw.status).toBe(200)
      const entries = await getHeatmaps(client(), { exchange })
      expect(entries).toEqual(
        raw.body.data.map(
          (entry: { symbol: string; company_name: string; market_cap: number; total_shares: number }) => ({
            symbol: entry.symbol,
            companyName: entry.company_name,
            marketCap: BigInt(entry.market_cap),
            totalShares: entry.total_shares,
          }),
        ),
      )
      const stocks = sandboxCatalogue.filter((stock) => stock.exchange === exchange)
      expect(entries.map((entry) => entry.symbol).sort()).toEqual(stocks.map((stock) => stock.ticker).sort())
      for (const entry of entries) {
        const stock = stocks.find((candidate) => candidate.ticker === entry.symbol)
        if (!stock) throw new Error(`${entry.symbol} is not in the catalogue`)
        const price = parsePrice(service().context.prices.lastPrice(stock.ticker, stock.exchange, nowMs))
        expect(entry.marketCap).toBe((BigInt(stock.totalShares) * price) / 10n ** 8n)
      }
      const caps = entries.map((entry) => entry.marketCap)
      expect(caps).toEqual([...caps].sort((a, b) => (a > b ? -1 : a < b ? 1 : 0)))
    },
  )

  it('refuses an exchange the service does not know', async () => {
    await expect(getHeatmaps(client(), { exchange: 2 as ExchangeCode })).rejects.toBeInstanceOf(
      ServiceBadRequestError,
    )
  })
})
