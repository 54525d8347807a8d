import { z } from 'zod'
import type { ExchangeCode } from '../../domain/markets.js'
import type { CallOptions, ServiceClient } from '../serviceClient.js'

/**
 * An int64 sent as a JSON number (or, tolerated, as integer text), returned as bigint. Above 2^53 a
 * JSON number has already lost its last digits when parsed; it is still accepted as the integer it
 * became (zod's `.int()` would refuse it).
 */
const int64Schema = z
  .union([
    z.number().refine(Number.isInteger, 'expected an integer'),
    z.string().regex(/^-?\d{1,19}$/, 'expected an integer'),
  ])
  .transform((value) => BigInt(value))

const heatmapEntrySchema = z
  .object({
    symbol: z.string(),
    company_name: z.string(),
    market_cap: int64Schema,
    total_shares: z.number().nonnegative(),
  })
  .transform((entry) => ({
    symbol: entry.symbol,
    companyName: entry.company_name,
    /** Market capitalisation in the market's currency (USD, HKD, KRW), whole units. */
    marketCap: entry.market_cap,
    /** Shares outstanding, a float in the reference: informational, never used for amounts. */
    totalShares: entry.total_shares,
  }))

const getHeatmapsSchema = z.array(heatmapEntrySchema)

export type GetHeatmapsParameters = {
  /** Exchange code: 0 US, 1 HK, 3 KR. */
  exchange: ExchangeCode
}

export type GetHeatmapsReturnType = z.output<typeof getHeatmapsSchema>
export type HeatmapEntry = GetHeatmapsReturnType[number]

/**
 * Market caps of an exchange's stocks, for heatmaps (GET /api/v1/tickers/heatmaps, public).
 *
 * @example
 * const entries = await getHeatmaps(client, { exchange: 1 })
 * entries[0] // { symbol: '0700', companyName: 'Tencent Holdings Ltd.', marketCap: 3859492000000n, totalShares: 9220000000 }
 */
export function getHeatmaps(
  client: ServiceClient,
  parameters: GetHeatmapsParameters,
  options?: CallOptions,
): Promise<GetHeatmapsReturnType> {
  return client.request(
    {
      method: 'GET',
      path: '/api/v1/tickers/heatmaps',
      query: { exchange: parameters.exchange },
      auth: 'public',
      schema: getHeatmapsSchema,
    },
    options,
  )
}
