import { createHash, createHmac } from 'node:crypto'

/** What an API-key request signature covers; see `apiKeyStringToSign`. */
export type ApiKeySignedRequest = {
  /** Unix milliseconds, as sent in X-API-Timestamp. */
  timestamp: number
  method: string
  /** Path without query, e.g. `/api/v1/router/quote`. */
  path: string
  /** Query parameters in any order; repeated keys keep their relative order. */
  query: readonly (readonly [string, string])[]
  /** X-Maker-Addr when sent (maker endpoints), else undefined. */
  makerAddress?: string | undefined
  /** Raw request body; empty for GET. */
  body?: string | undefined
}

/**
 * The canonical string an API-key signature covers (DESIGN.md's decision, pluggable on the client):
 * `timestamp \n METHOD \n path?sorted-query \n maker-address-lowercase-or-empty \n sha256(body)-hex-or-empty`.
 * The query is sorted by key (stable for repeated keys) and percent-encoded with encodeURIComponent.
 *
 * @example
 * apiKeyStringToSign({ timestamp: 1700000000000, method: 'GET', path: '/api/v1/orders', query: [['page', '1']] })
 * // '1700000000000\nGET\n/api/v1/orders?page=1\n\n'
 */
export function apiKeyStringToSign(request: ApiKeySignedRequest): string {
  const sortedQuery = [...request.query]
    .map(([key, value], index) => ({ key, value, index }))
    .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : a.index - b.index))
    .map(({ key, value }) => `${encodeURIComponent(key)}=${encodeURIComponent(value)}`)
    .join('&')
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
 * const signature = signApiKeyRequest(secret, { timestamp: Date.now(), method: 'GET', path, query })
 */
export function signApiKeyRequest(secret: string, request: ApiKeySignedRequest): string {
  return createHmac('sha256', secret).update(apiKeyStringToSign(request)).digest('hex')
}
