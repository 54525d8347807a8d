import { z } from 'zod'
import { parseSpreadTable, type SpreadTable, type SpreadTableMarket } from '../../domain/spreadTables.js'
import type { CallOptions, ServiceClient } from '../serviceClient.js'

const spreadTableSchema = z
  .object({
    code: z.string(),
    price_bands: z.array(z.object({ from: z.string(), to: z.string(), minimum_spread: z.string() })),
  })
  .transform((json, context): SpreadTable => {
    try {
      return parseSpreadTable(json)
    } catch (error) {
      context.addIssue({ code: 'custom', message: error instanceof Error ? error.message : String(error) })
      return z.NEVER
    }
  })

const getSpreadTablesSchema = z.array(spreadTableSchema)

export type GetSpreadTablesParameters = {
  /** The markets with price bands: `hkex` or `krex` (US stocks have one tick of 0.01). */
  market: SpreadTableMarket
}

/** The market's tables, parsed and validated by the domain's parseSpreadTable. */
export type GetSpreadTablesReturnType = SpreadTable[]

/**
 * A market's price-band (spread) tables (GET /market/v1/{market}/spread-tables, API key +
 * signature), parsed with the domain's `parseSpreadTable`: bands ascending and contiguous, prices
 * as `Price`. A table that breaks those rules fails the call (ServiceResponseError naming it). Pass
 * the tables to the domain's tick functions to check prices against the service's own bands.
 *
 * @example
 * const hkex = await getSpreadTables(client, { market: 'hkex' })
 * tickSize({ market: 'hkex', spreadTableCode: '1', price: parsePrice('418.6'), tables: { ...spreadTablesByMarket, hkex } })
 * // 20000000n (0.2)
 */
export function getSpreadTables(
  client: ServiceClient,
  parameters: GetSpreadTablesParameters,
  options?: CallOptions,
): Promise<GetSpreadTablesReturnType> {
  return client.request(
    {
      method: 'GET',
      path: `/market/v1/${encodeURIComponent(parameters.market)}/spread-tables`,
      auth: 'institution',
      schema: getSpreadTablesSchema,
    },
    options,
  )
}
