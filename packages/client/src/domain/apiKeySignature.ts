import { createHash, createHmac } from 'node:crypto'

/** Query pairs, decoded, in the order they are sent; repeated keys keep their relative order. */
export type QueryPairs = readonly (readonly [string, string])[]

/** What an API-key request signature covers; see `apiKeyStringToSign`. */
export type ApiKeySignedRequest = {
  /** Unix milliseconds, as sent in X-API-Timestamp. */
  timestamp: number
  method: string
  /** Path without query, e.g. `/api/v1/router/quote`. */
  path: string
  /**
   * The query exactly as sent: the raw text after `?` (without the `?`), percent-encoding as it
   * goes on the wire, e.g. `symbols=AAPL,MSFT&page=1`. Or, for callers that build their query
   * with `new URLSearchParams(pairs)`, the pairs: they are serialised the same way
   * (`formatQuery`), so the signature still covers the bytes that are sent.
   */
  query: string | QueryPairs
  /** X-Maker-Addr when sent (maker endpoints), else undefined. */
  makerAddress?: string | undefined
  /** Raw request body; empty for GET. */
  body?: string | undefined
}

/**
 * Serialises query pairs as `URLSearchParams` does (application/x-www-form-urlencoded: space as
 * `+`, everything but `*-._` and alphanumerics percent-encoded). A client that sends
 * `formatQuery(pairs)` and signs the same pairs signs exactly what it sends.
 *
 * @example
 * formatQuery([['symbols', 'AAPL,MSFT']]) // 'symbols=AAPL%2CMSFT'
 */
export function formatQuery(pairs: QueryPairs): string {
  return new URLSearchParams(pairs.map(([key, value]): [string, string] => [key, value])).toString()
}

/**
 * The raw query of a request target (`/path?query#fragment` or a full URL): the text after the
 * first `?`, up to a `#`, exactly as received; '' when there is none.
 *
 * @example
 * rawQueryOf('/api/v1/orders?status=open,filled&page=1') // 'status=open,filled&page=1'
 */
export function rawQueryOf(target: string): string {
  const start = target.indexOf('?')
  if (start === -1) return ''
  const end = target.indexOf('#', start)
  return end === -1 ? target.slice(start + 1) : target.slice(start + 1, end)
}

/**
 * The canonical (signed) form of a raw query: its `&`-separated parameters, each kept byte for
 * byte as sent (no decoding, no re-encoding), sorted by key (the text before the first `=`,
 * compared as sent), stable for repeated keys. Nothing is dropped, so every byte of the query is
 * covered by the signature.
 *
 * @example
 * canonicalQuery('b=2&a=1,2&a=0') // 'a=1,2&a=0&b=2'
 * canonicalQuery('b=2&a=1%2C2')   // 'a=1%2C2&b=2'
 */
export function canonicalQuery(rawQuery: string): string {
  if (rawQuery === '') return ''
  return rawQuery
    .split('&')
    .map((parameter, index) => {
      const equals = parameter.indexOf('=')
      return { parameter, key: equals === -1 ? parameter : parameter.slice(0, equals), index }
    })
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.index - b.index))
    .map(({ parameter }) => parameter)
    .join('&')
}

/**
 * The canonical string an API-key signature covers (docs/sandbox.md, "Decisions"; pluggable on the client):
 * `timestamp \n METHOD \n path?sorted-query \n maker-address-lowercase-or-empty \n sha256(body)-hex-or-empty`.
 * sorted-query is `canonicalQuery` of the query exactly as sent; with no query, the target is the
 * path alone.
 *
 * @example
 * apiKeyStringToSign({ timestamp: 1700000000000, method: 'GET', path: '/api/v1/orders', query: 'page=1' })
 * // '1700000000000\nGET\n/api/v1/orders?page=1\n\n'
 */
export function apiKeyStringToSign(request: ApiKeySignedRequest): string {
  const rawQuery = typeof request.query === 'string' ? request.query : formatQuery(request.query)
  const sortedQuery = canonicalQuery(rawQuery)
  const target = sortedQuery ? `${request.path}?${sortedQuery}` : request.path
  const bodyHash = request.body ? createHash('sha256').update(request.body).digest('hex') : ''
  return [
    String(request.timestamp),
    request.method.toUpperCase(),
    target,
    request.makerAddress?.toLowerCase() ?? '',
    bodyHash,
  ].join('\n')
}

/**
 * The X-API-Signature value: hex HMAC-SHA256 of `apiKeyStringToSign(request)` with the API secret.
 *
 * @example
 * const signature = signApiKeyRequest(secret, { timestamp: Date.now(), method: 'GET', path, query: 'page=1' })
 */
export function signApiKeyRequest(secret: string, request: ApiKeySignedRequest): string {
  return createHmac('sha256', secret).update(apiKeyStringToSign(request)).digest('hex')
}
