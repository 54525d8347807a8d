import { getHeatmaps } from '@stockroute/client/api/actions/getHeatmaps.js'
import { createServiceClient } from '@stockroute/client/api/createServiceClient.js'
import { ServiceBadRequestError } from '@stockroute/client/api/errors.js'
import type { ExchangeCode } from '@stockroute/client/domain/markets.js'
import { beforeAll, describe, expect, it } from 'vitest'
import { holdPricesAtReference } from '../../helpers/pinnedPrices.js'
import { referenceMarketCaps } from '../../helpers/referenceMarketCaps.js'
import { apiCall, useSandboxService } from '../../helpers/sandboxService.js'

// The market is held at the catalogue's reference prices: the same caps in both requests, and
// known by hand (test/helpers/referenceMarketCaps.ts).
const service = useSandboxService()
beforeAll(() => {
  holdPricesAtReference(service().context.prices)
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
      // Market caps as bigint, worked out by hand at the reference prices, largest first.
      expect(entries.map((entry) => [entry.symbol, entry.marketCap])).toEqual(
        referenceMarketCaps[exchange].map(({ symbol, marketCap }) => [symbol, BigInt(marketCap)]),
      )
    },
  )

  it('refuses an exchange the service does not know', async () => {
    await expect(getHeatmaps(client(), { exchange: 2 as ExchangeCode })).rejects.toBeInstanceOf(
      ServiceBadRequestError,
    )
  })
})
