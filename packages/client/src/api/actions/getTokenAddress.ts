import { z } from 'zod'
import { DomainRuleError } from '../../domain/domainRuleError.js'
import type { ExchangeCode } from '../../domain/markets.js'
import { parseStockQuantity } from '../../domain/unitStrings.js'
import { addressSchema } from '../schemas.js'
import type { CallOptions, ServiceClient } from '../serviceClient.js'
import { decimalsOfTokenKind } from '../tokenQuantity.js'

const getTokenAddressSchema = z
  .object({
    ticker: z.string(),
    stock_code: z.string().nullable().optional(),
    name: z.string(),
    exchange_id: z.number().int(),
    chain_id: z.number().int(),
    token_address: addressSchema,
    token_type: z.enum(['stock', 'share']).optional(),
    underlying_token: addressSchema.nullable().optional(),
    decimals: z.number().int(),
    is_active: z.boolean(),
    lot_size: z.string().transform((text, context) => {
      try {
        return parseStockQuantity(text)
      } catch (error) {
        context.addIssue({
          code: 'custom',
          message: `expected a whole number of shares, got ${JSON.stringify(text)}: ${error instanceof DomainRuleError ? error.shortMessage : String(error)}`,
        })
        return z.NEVER
      }
    }),
    spread_table_code: z.string(),
  })
  .transform((record, context) => {
    // token_type is optional in the reference; the decimals then name the kind (0 stock, 18 share).
    const tokenType =
      record.token_type ?? (record.decimals === 0 ? 'stock' : record.decimals === 18 ? 'share' : undefined)
    if (!tokenType || decimalsOfTokenKind(tokenType) !== record.decimals) {
      context.addIssue({
        code: 'custom',
        path: ['decimals'],
        message: `a ${record.token_type ?? 'token'} has ${tokenType ? decimalsOfTokenKind(tokenType) : '0 or 18'} decimals, got ${record.decimals}`,
      })
      return z.NEVER
    }
    return {
      ticker: record.ticker,
      stockCode: record.stock_code ?? null,
      name: record.name,
      exchangeId: record.exchange_id,
      chainId: record.chain_id,
      tokenAddress: record.token_address,
      tokenType,
      /** The StockToken a ShareToken represents fractions of; null for a StockToken. */
      underlyingToken: record.underlying_token ?? null,
      decimals: record.decimals,
      isActive: record.is_active,
      /** Board lot in whole shares (1 for US stocks). */
      lotSize: record.lot_size,
      spreadTableCode: record.spread_table_code,
    }
  })

export type GetTokenAddressParameters = {
  /** StockToken ticker, or the ShareToken form with the `s` suffix. */
  ticker: string
  exchange: ExchangeCode
  /** Default: the service's default chain. */
  chainId?: number | undefined
}

export type GetTokenAddressReturnType = z.output<typeof getTokenAddressSchema>

/**
 * The token of a ticker on an exchange and chain (GET /api/v1/instruments/token-address, maker:
 * API key with the client's `makerAddress`, or the wallet's JWT). The service caches found records
 * for 4 hours, so a token deactivated meanwhile may still be returned. An unknown ticker is a
 * `ServiceNotFoundError` whose body is `{error: "Not found: …"}`.
 *
 * @example
 * const token = await getTokenAddress(client, { ticker: '0700', exchange: 1, chainId: 31337 })
 * token.tokenAddress // '0x…'
 * token.lotSize // 100n
 */
export function getTokenAddress(
  client: ServiceClient,
  parameters: GetTokenAddressParameters,
  options?: CallOptions,
): Promise<GetTokenAddressReturnType> {
  return client.request(
    {
      method: 'GET',
      path: '/api/v1/instruments/token-address',
      query: { ticker: parameters.ticker, exchange: parameters.exchange, chain_id: parameters.chainId },
      auth: 'maker',
      schema: getTokenAddressSchema,
    },
    options,
  )
}
