import { z } from 'zod'
import type { ExchangeCode } from '../../domain/markets.js'
import { addressSchema, decimalStringSchema } from '../schemas.js'
import type { CallOptions, ServiceClient } from '../serviceClient.js'

const getTickerStatsSchema = z
  .object({
    ticker: z.string(),
    name: z.string(),
    chain_id: z.number().int().optional(),
    address: addressSchema.optional(),
    exchange: z.number().int(),
    orders: z.number().int().nonnegative(),
    volume: decimalStringSchema,
  })
  .transform((stats) => ({
    ticker: stats.ticker,
    name: stats.name,
    /** The chain asked for; null when the statistics are aggregated over every chain. */
    chainId: stats.chain_id ?? null,
    /** The token's address on that chain; null when aggregated. */
    address: stats.address ?? null,
    exchange: stats.exchange,
    /** Number of orders. */
    orders: stats.orders,
    /**
     * Σ price × quantity as the service's decimal text (the sandbox: USD natural units, exact, up to
     * 36 decimals): not an amount of one token, so it stays text.
     */
    volume: stats.volume,
  }))

export type GetTickerStatsParameters = {
  /** The ticker, exact (`AAPL`, `AAPLs`, `0700`). */
  symbol: string
  exchange: ExchangeCode
  /** One chain; when absent, aggregated over every chain. */
  chainId?: number
}

export type GetTickerStatsReturnType = z.output<typeof getTickerStatsSchema>

/**
 * Order count and traded volume of one active ticker (GET /api/v1/tickers/{symbol}/stats, public).
 *
 * @example
 * const stats = await getTickerStats(client, { symbol: 'AAPL', exchange: 0, chainId: 31337 })
 * stats.orders // 3
 * stats.address // '0x…' (AAPL on chain 31337)
 */
export function getTickerStats(
  client: ServiceClient,
  parameters: GetTickerStatsParameters,
  options?: CallOptions,
): Promise<GetTickerStatsReturnType> {
  return client.request(
    {
      method: 'GET',
      path: `/api/v1/tickers/${encodeURIComponent(parameters.symbol)}/stats`,
      query: { exchange: parameters.exchange, chain_id: parameters.chainId },
      auth: 'public',
      schema: getTickerStatsSchema,
    },
    options,
  )
}
