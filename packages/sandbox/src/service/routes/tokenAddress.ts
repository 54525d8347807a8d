import type { ExchangeCode } from '@stockroute/client/domain/markets.js'
import type { Address } from 'viem'
import { findListing } from '../context.js'
import type { Listing, SandboxContext } from '../contextTypes.js'
import { SandboxHttpError } from '../errors.js'
import type { SandboxRequest } from '../request.js'
import { ok, type Route } from '../route.js'
import { isListed } from './chainTokens.js'

/** The lookup's `data`, in the reference's field names. */
export type TokenAddressRecord = {
  ticker: string
  stock_code: string
  name: string
  exchange_id: ExchangeCode
  chain_id: number
  token_address: Address
  token_type: 'stock' | 'share'
  underlying_token: Address | null
  decimals: number
  is_active: boolean
  lot_size: string
  spread_table_code: string
}

/** Rule 1's cache key. */
export function tokenAddressCacheKey(ticker: string, exchangeId: bigint, chainId: bigint): string {
  return `token_addr:${ticker}:${exchangeId}:${chainId}`
}

/** A Rust integer type, by its bounds. `exchange` is read as an i32, `chain_id` as a u64. */
type IntType = { min: bigint; max: bigint }
const i32: IntType = { min: -(2n ** 31n), max: 2n ** 31n - 1n }
const u64: IntType = { min: 0n, max: 2n ** 64n - 1n }

/** Display texts of Rust's `ParseIntError` kinds. */
export const parseIntErrors = {
  empty: 'cannot parse integer from empty string',
  invalidDigit: 'invalid digit found in string',
  posOverflow: 'number too large to fit in target type',
  negOverflow: 'number too small to fit in target type',
} as const

/**
 * Rust's integer parsing (`str::parse`), whose error texts the service returns: it deserializes
 * the query with serde, and a bad integer answers `Failed to deserialize query string:
 * <ParseIntError>`. Same rules: optional `+` (or `-` for signed types), ASCII digits only, the
 * first problem from the left wins.
 */
export function parseRustInt(text: string, type: IntType): bigint | { error: string } {
  if (text === '') return { error: parseIntErrors.empty }
  const signed = type.min < 0n
  let digits = text
  let negative = false
  if (text[0] === '+' || (text[0] === '-' && signed)) {
    if (text.length === 1) return { error: parseIntErrors.invalidDigit }
    negative = text[0] === '-'
    digits = text.slice(1)
  }
  let value = 0n
  for (const char of digits) {
    if (char < '0' || char > '9') return { error: parseIntErrors.invalidDigit }
    const digit = BigInt(char.charCodeAt(0) - 48)
    value = negative ? value * 10n - digit : value * 10n + digit
    if (value > type.max) return { error: parseIntErrors.posOverflow }
    if (value < type.min) return { error: parseIntErrors.negOverflow }
  }
  return value
}

const utf8 = new TextEncoder()

/**
 * The cache key as a header value: the ticker comes from the caller and may hold characters a
 * header cannot carry, so anything outside printable ASCII (and `%` itself) is percent-encoded.
 */
export function cacheKeyHeader(key: string): string {
  return key.replace(/[^\x21-\x24\x26-\x7e]+/g, (run) =>
    Array.from(utf8.encode(run), (byte) => `%${byte.toString(16).toUpperCase().padStart(2, '0')}`).join(''),
  )
}

/** The `{error}` body of this endpoint; a failed lookup carries the cache headers (nothing was cached). */
function lookupError(status: number, error: string, cacheKey?: string): SandboxHttpError {
  const headers: Record<string, string> = cacheKey
    ? { 'x-cache': 'MISS', 'x-cache-key': cacheKeyHeader(cacheKey), 'cache-control': 'no-store' }
    : {}
  return new SandboxHttpError(status, { error }, headers)
}

const deserializeError = (reason: string) => lookupError(400, `Failed to deserialize query string: ${reason}`)

type LookupQuery = { ticker: string; exchange: bigint; chainId: bigint | undefined }

/**
 * Reads the query as the service's serde struct does: pairs in order, unknown keys ignored, a
 * repeated key refused, integers parsed as Rust parses them. A missing `exchange` reads as an
 * empty one (rule 3); a missing `ticker` reads as an empty one (rule 2: not found).
 */
function readLookupQuery(request: SandboxRequest): LookupQuery {
  const seen = new Set<string>()
  let ticker = ''
  let exchange: bigint | undefined
  let chainId: bigint | undefined
  for (const [key, value] of request.queryPairs) {
    if (key !== 'ticker' && key !== 'exchange' && key !== 'chain_id') continue
    if (seen.has(key)) throw deserializeError(`duplicate field \`${key}\``)
    seen.add(key)
    if (key === 'ticker') {
      ticker = value
      continue
    }
    const parsed = parseRustInt(value, key === 'exchange' ? i32 : u64)
    if (typeof parsed !== 'bigint') throw deserializeError(parsed.error)
    if (key === 'exchange') exchange = parsed
    else chainId = parsed
  }
  if (exchange === undefined) throw deserializeError(parseIntErrors.empty)
  return { ticker, exchange, chainId }
}

function tokenAddressRecord(listing: Listing): TokenAddressRecord {
  return {
    ticker: listing.ticker,
    stock_code: listing.stock.stockCode,
    name: listing.stock.name,
    exchange_id: listing.exchange,
    chain_id: listing.chainId,
    token_address: listing.address,
    token_type: listing.kind,
    underlying_token: listing.underlying,
    decimals: listing.decimals,
    is_active: listing.isActive,
    lot_size: String(listing.stock.lotSize),
    spread_table_code: listing.stock.spreadTableCode,
  }
}

function findActiveListing(
  context: SandboxContext,
  query: LookupQuery,
  chainId: bigint,
): Listing | undefined {
  if (query.ticker === '' || chainId > BigInt(Number.MAX_SAFE_INTEGER)) return undefined
  const listing = findListing(context, Number(chainId), query.ticker, Number(query.exchange))
  return listing && isListed(listing) ? listing : undefined
}

/**
 * GET /api/v1/instruments/token-address: one token of a ticker, exchange and chain (the default
 * chain when chain_id is absent). Found records are cached 4 hours under
 * `token_addr:{ticker}:{exchange_id}:{chain_id}`, so a token deactivated meanwhile keeps answering
 * from the cache until its entry expires. The sandbox shows the cache in headers: `X-Cache: HIT` or
 * `MISS`, `X-Cache-Key`, and `Cache-Control: private, max-age=<seconds the entry has left>`.
 */
export const tokenAddressRoute: Route = {
  method: 'GET',
  path: '/api/v1/instruments/token-address',
  auth: 'maker',
  handle(request, context) {
    const query = readLookupQuery(request)
    const chainId = query.chainId ?? BigInt(context.defaultChainId)
    const key = tokenAddressCacheKey(query.ticker, query.exchange, chainId)
    const nowMs = context.clock.now()
    const cached = context.tokenAddressCache.get(key, nowMs)
    if (cached !== undefined) return withCacheHeaders(ok(cached), 'HIT', key, context, nowMs)

    const listing = findActiveListing(context, query, chainId)
    if (!listing) {
      throw lookupError(
        404,
        `Not found: not found or not available: ticker=${query.ticker}, exchange=${query.exchange}, chain_id=${chainId}`,
        key,
      )
    }
    const record = tokenAddressRecord(listing)
    context.tokenAddressCache.set(key, record, nowMs)
    return withCacheHeaders(ok(record), 'MISS', key, context, nowMs)
  },
}

function withCacheHeaders(
  reply: ReturnType<typeof ok>,
  status: 'HIT' | 'MISS',
  key: string,
  context: SandboxContext,
  nowMs: number,
) {
  const maxAge = context.tokenAddressCache.remainingSeconds(key, nowMs)
  return {
    ...reply,
    headers: {
      'x-cache': status,
      'x-cache-key': cacheKeyHeader(key),
      'cache-control': `private, max-age=${maxAge}`,
    },
  }
}
