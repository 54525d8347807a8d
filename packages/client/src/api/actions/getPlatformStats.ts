import { z } from 'zod'
import { StockrouteError } from '../../domain/errors.js'
import { baseUnitsSchema, decimalStringSchema } from '../schemas.js'
import type { CallOptions, ServiceClient } from '../serviceClient.js'

const getPlatformStatsSchema = z
  .object({
    total_user_addresses: z.number().int().nonnegative(),
    total_orders: z.number().int().nonnegative(),
    total_instruments: z.number().int().nonnegative(),
    total_balance: baseUnitsSchema,
    total_minted_tokens: baseUnitsSchema,
    total_market_value: decimalStringSchema,
  })
  .transform((stats) => ({
    totalUserAddresses: stats.total_user_addresses,
    totalOrders: stats.total_orders,
    /** Instruments summed over the chosen chains (a ticker on two chains counts twice). */
    totalInstruments: stats.total_instruments,
    /**
     * Σ of every user's holdings in base units (wei unit), across tokens of 0 and 18 decimals: a
     * count of base units, not an amount of one token, so it carries no unit brand.
     */
    totalBalance: stats.total_balance,
    /** Σ of executed buy quantities in base units (wei unit), tokens of any decimals. */
    totalMintedTokens: stats.total_minted_tokens,
    /** Market value of the holdings as the service's decimal text (the sandbox: USD, to the cent). */
    totalMarketValue: stats.total_market_value,
  }))

export type GetPlatformStatsParameters = {
  /** The chains to count; every chain when absent. An empty list is refused (it names no chain). */
  chainIds?: readonly number[]
}

export type GetPlatformStatsReturnType = z.output<typeof getPlatformStatsSchema>

/**
 * Platform-wide statistics over some or all chains (GET /api/v1/stats, public).
 *
 * @example
 * const stats = await getPlatformStats(client, { chainIds: [31337, 31338] })
 * stats.totalMintedTokens // 1500000000000000000100n (bigint, base units)
 */
export async function getPlatformStats(
  client: ServiceClient,
  parameters: GetPlatformStatsParameters = {},
  options?: CallOptions,
): Promise<GetPlatformStatsReturnType> {
  const { chainIds } = parameters
  if (chainIds?.length === 0)
    throw new StockrouteError({
      code: 'INVALID_PARAMETER',
      shortMessage: 'chainIds is empty: name at least one chain, or leave chainIds out for every chain',
    })
  return client.request(
    {
      method: 'GET',
      path: '/api/v1/stats',
      query: { chain_ids: chainIds?.join(',') },
      auth: 'public',
      schema: getPlatformStatsSchema,
    },
    options,
  )
}
