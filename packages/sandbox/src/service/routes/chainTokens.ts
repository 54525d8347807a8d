import { exchangeNames } from '@stockroute/client/domain/markets.js'
import type { Address } from 'viem'
import { z } from 'zod'
import type { Listing, SandboxContext } from '../contextTypes.js'
import { badRequest, notFound } from '../errors.js'
import { addressParam, describeIssues, intParam, parseQuery } from '../request.js'
import type { Route } from '../route.js'

/** Page size when only `page` is given (the reference's default). */
export const defaultTokenPageSize = 100
/** Largest page size accepted; above it the request is refused with 400 naming the limit. */
export const maxTokenPageSize = 500

/** One entry of the chain token list, in the reference's field names. */
export type ChainTokenRecord = {
  ticker: string
  stock_code: string
  name: string
  exchange: string
  token_address: Address
  token_type: 'stock' | 'share'
  underlying_token: Address | null
  decimals: number
  lot_size: string
  spread_table_code: string
}

export type ChainTokensResponse = {
  chain_id: number
  tokens: ChainTokenRecord[]
  total: number
  page?: number
  page_size?: number
  total_pages?: number
}

const pageNumber = intParam().refine((value) => value >= 1, 'must be 1 or more (pages are 1-based)')
const pageSize = intParam()
  .refine((value) => value >= 1, 'must be 1 or more')
  .refine(
    (value) => value <= maxTokenPageSize,
    `must be at most ${maxTokenPageSize}, the maximum page size; fetch further pages with page`,
  )

/** Unknown parameters are ignored, as the service's query deserializer does. */
const chainTokensQuery = z.object({
  exchange_id: intParam().optional(),
  ticker: z.string().optional(),
  token_address: addressParam.optional(),
  stock_code: z.string().optional(),
  token_type: z.enum(['stock', 'share'], { error: 'must be stock or share' }).optional(),
  page: pageNumber.optional(),
  page_size: pageSize.optional(),
})

const chainIdPath = intParam({ min: 0 })

/** Rule 1: a listing is shown only while it is active and has a token address. */
export function isListed(listing: Listing): boolean {
  return listing.isActive && typeof listing.address === 'string' && listing.address.length > 0
}

/** Rule 3: by ticker, byte-wise (as the service's Rust strings compare), then exchange and address. */
export function compareListings(a: Listing, b: Listing): number {
  if (a.ticker !== b.ticker) return a.ticker < b.ticker ? -1 : 1
  if (a.exchange !== b.exchange) return a.exchange - b.exchange
  return a.address.toLowerCase() < b.address.toLowerCase() ? -1 : 1
}

export function chainTokenRecord(listing: Listing): ChainTokenRecord {
  return {
    ticker: listing.ticker,
    stock_code: listing.stock.stockCode,
    name: listing.stock.name,
    exchange: exchangeNames[listing.exchange],
    token_address: listing.address,
    token_type: listing.kind,
    underlying_token: listing.underlying,
    decimals: listing.decimals,
    lot_size: String(listing.stock.lotSize),
    spread_table_code: listing.stock.spreadTableCode,
  }
}

/**
 * GET /api/v1/chains/{chain_id}/tokens: the active tokens of one chain, filtered (AND), sorted by
 * ticker, paginated when page or page_size is given. The response has no `{code, data}` wrapper.
 */
export const chainTokensRoute: Route = {
  method: 'GET',
  path: '/api/v1/chains/:chain_id/tokens',
  auth: 'public',
  handle(request, context) {
    const chainId = parseChainId(request.params.chain_id, context)
    const query = parseQuery(request, chainTokensQuery)
    const matching = (context.listings.get(chainId) ?? [])
      .filter(isListed)
      .filter(
        (listing) =>
          (query.exchange_id === undefined || listing.exchange === query.exchange_id) &&
          (query.ticker === undefined || listing.ticker === query.ticker) &&
          (query.token_address === undefined || listing.address.toLowerCase() === query.token_address) &&
          (query.stock_code === undefined || listing.stock.stockCode === query.stock_code) &&
          (query.token_type === undefined || listing.kind === query.token_type),
      )
      .sort(compareListings)
    const total = matching.length
    if (query.page === undefined && query.page_size === undefined) {
      const body: ChainTokensResponse = { chain_id: chainId, tokens: matching.map(chainTokenRecord), total }
      return { body }
    }
    const page = query.page ?? 1
    const size = query.page_size ?? defaultTokenPageSize
    const start = (page - 1) * size
    const body: ChainTokensResponse = {
      chain_id: chainId,
      tokens: matching.slice(start, start + size).map(chainTokenRecord),
      total,
      page,
      page_size: size,
      total_pages: Math.ceil(total / size),
    }
    return { body }
  },
}

function parseChainId(text: string | undefined, context: SandboxContext): number {
  const parsed = chainIdPath.safeParse(text)
  if (!parsed.success) throw badRequest(`chain_id: ${describeIssues(parsed.error)}`)
  const chainId = parsed.data
  if (!context.chains.some((chain) => chain.chainId === chainId)) {
    const served = context.chains.map((chain) => chain.chainId).join(', ')
    throw notFound(`chain_id: ${chainId} is not a served chain; chains: ${served} (GET /api/v1/chains)`)
  }
  return chainId
}
