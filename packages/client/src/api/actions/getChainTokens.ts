import type { Address } from 'viem'
import { z } from 'zod'
import { StockrouteError } from '../../domain/errors.js'
import type { ExchangeCode, TokenKind } from '../../domain/markets.js'
import { parseStockQuantity } from '../../domain/unitStrings.js'
import { chainTokensDefaultPageSize, chainTokensMaxPageSize } from '../chainTokensPageSize.js'
import { addressSchema } from '../schemas.js'
import type { CallOptions, ServiceClient } from '../serviceClient.js'

export { chainTokensDefaultPageSize, chainTokensMaxPageSize } from '../chainTokensPageSize.js'

/**
 * A board lot (`lot_size`, "decimal serialized as string"): a whole number of shares, as bigint.
 * `"100"` and `"100.0"` are 100n; a fraction or zero is refused.
 */
export const lotSizeSchema = z
  .union([z.string(), z.number().int().nonnegative()])
  .transform((value, context) => {
    try {
      const lot: bigint = parseStockQuantity(String(value))
      if (lot > 0n) return lot
    } catch {
      // reported below
    }
    context.addIssue({
      code: 'custom',
      message: `expected a lot size of 1 share or more, got ${JSON.stringify(value)}`,
    })
    return z.NEVER
  })

const chainTokenSchema = z
  .object({
    ticker: z.string(),
    stock_code: z.string().nullish(),
    name: z.string(),
    exchange: z.string(),
    token_address: addressSchema,
    token_type: z.enum(['stock', 'share']).nullish(),
    underlying_token: addressSchema.nullish(),
    decimals: z.number().int().min(0).max(255),
    lot_size: lotSizeSchema,
    spread_table_code: z.string(),
  })
  .transform((token) => ({
    ticker: token.ticker,
    /** The underlying stock code; null when the service leaves it out. */
    stockCode: token.stock_code ?? null,
    name: token.name,
    /** Exchange name as the list shows it (`USEX`, `HKEX`, `KREX`). */
    exchange: token.exchange,
    tokenAddress: token.token_address,
    /** `stock` (0 decimals) or `share` (18 decimals); null when the service leaves it out. */
    tokenType: (token.token_type ?? null) as TokenKind | null,
    /** The StockToken a ShareToken stands for; null for StockTokens. */
    underlyingToken: token.underlying_token ?? null,
    decimals: token.decimals,
    /** Board lot in whole shares (1 for US stocks). */
    lotSize: token.lot_size,
    spreadTableCode: token.spread_table_code,
  }))

const getChainTokensSchema = z
  .object({
    chain_id: z.number().int(),
    tokens: z.array(chainTokenSchema),
    total: z.number().int().nonnegative(),
    page: z.number().int().optional(),
    page_size: z.number().int().optional(),
    total_pages: z.number().int().nonnegative().optional(),
  })
  .transform((reply) => ({
    chainId: reply.chain_id,
    tokens: reply.tokens,
    /** Every record matching the filters, whatever the page. */
    total: reply.total,
    /** Present when the reply is paginated (page or page_size was sent). */
    pagination:
      reply.page !== undefined && reply.page_size !== undefined && reply.total_pages !== undefined
        ? { page: reply.page, pageSize: reply.page_size, totalPages: reply.total_pages }
        : null,
  }))

/** Filters of the token list; they combine with AND. */
export type ChainTokensFilters = {
  /** Exchange code: 0 US, 1 HK, 3 KR. */
  exchangeId?: ExchangeCode
  /** Exact, case-sensitive ticker (`AAPLs` is the ShareToken of `AAPL`). */
  ticker?: string
  /** Exact token address (the sandbox matches any case). */
  tokenAddress?: Address
  /** Exact stock code. */
  stockCode?: string
  tokenType?: TokenKind
}

export type GetChainTokensParameters = ChainTokensFilters & {
  chainId: number
  /** 1-based. With `pageSize`, the reply is one page; without both, every matching token. */
  page?: number
  /** At most {@link chainTokensMaxPageSize}. */
  pageSize?: number
}

export type GetChainTokensReturnType = z.output<typeof getChainTokensSchema>
export type ChainToken = GetChainTokensReturnType['tokens'][number]

/**
 * Lists the active tokens of one chain, sorted by ticker (GET /api/v1/chains/{chain_id}/tokens,
 * public; the one reply without the `{code, data}` wrapper). Paginated when `page` or `pageSize` is
 * given; to walk every page use {@link iterateChainTokens}.
 *
 * @example
 * const { tokens, total } = await getChainTokens(client, { chainId: 31337, exchangeId: 1 })
 * tokens[0].lotSize // 400n (0005, HKEX)
 */
export function getChainTokens(
  client: ServiceClient,
  parameters: GetChainTokensParameters,
  options?: CallOptions,
): Promise<GetChainTokensReturnType> {
  const { chainId } = parameters
  return client.request(
    {
      method: 'GET',
      path: `/api/v1/chains/${encodeURIComponent(String(chainId))}/tokens`,
      query: {
        exchange_id: parameters.exchangeId,
        ticker: parameters.ticker,
        token_address: parameters.tokenAddress,
        stock_code: parameters.stockCode,
        token_type: parameters.tokenType,
        page: parameters.page,
        page_size: parameters.pageSize,
      },
      auth: 'public',
      schema: getChainTokensSchema,
      unwrapped: true,
    },
    options,
  )
}

export type IterateChainTokensParameters = ChainTokensFilters & {
  chainId: number
  /** Tokens per request, 1 to {@link chainTokensMaxPageSize}. Default {@link chainTokensDefaultPageSize}. */
  pageSize?: number
}

/**
 * Every token of a chain matching the filters, one page request at a time (page 1, 2, … with
 * `page_size`), stopping after the last page the service announces (`total_pages`) or at the first
 * empty page. Each page is fetched only when the previous one has been consumed; the signal in
 * `options` cancels the walk. The service pages by offset: no token is yielded twice (by address),
 * even when a listing added between two pages pushes records forward across a page boundary; but a
 * listing removed meanwhile pulls one back onto a page already read, so it is missed. Use
 * {@link getChainTokens} without pagination when an exact snapshot matters.
 *
 * @example
 * for await (const token of iterateChainTokens(client, { chainId: 31337, tokenType: 'share' }, { signal })) {
 *   console.log(token.ticker, token.underlyingToken)
 * }
 */
export async function* iterateChainTokens(
  client: ServiceClient,
  parameters: IterateChainTokensParameters,
  options?: CallOptions,
): AsyncGenerator<ChainToken, void, undefined> {
  const { pageSize = chainTokensDefaultPageSize, ...filters } = parameters
  if (!Number.isInteger(pageSize) || pageSize < 1 || pageSize > chainTokensMaxPageSize)
    throw new StockrouteError({
      code: 'INVALID_PARAMETER',
      shortMessage: `pageSize ${pageSize} is not valid: use a whole number from 1 to ${chainTokensMaxPageSize}`,
      details: { pageSize },
    })
  const seen = new Set<string>()
  for (let page = 1; ; page++) {
    const reply = await getChainTokens(client, { ...filters, page, pageSize }, options)
    for (const token of reply.tokens) {
      // A token that moved to a later page (a listing removed meanwhile) is not yielded twice.
      const key = token.tokenAddress.toLowerCase()
      if (seen.has(key)) continue
      seen.add(key)
      yield token
    }
    // A service that ignores pagination answers with everything at once: nothing more to fetch.
    if (reply.pagination === null || reply.tokens.length === 0 || page >= reply.pagination.totalPages) return
  }
}
