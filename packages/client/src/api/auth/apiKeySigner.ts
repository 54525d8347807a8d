import { type ApiKeySignedRequest, signApiKeyRequest } from '../../domain/apiKeySignature.js'

/**
 * Signs API-key requests. Pluggable: a deployment whose service signs differently (or keeps the
 * secret in an HSM) provides its own. `request.query` is the query exactly as it goes on the wire
 * (or the pairs the client sends as `new URLSearchParams(pairs)`, which `formatQuery` serialises
 * identically): the signature covers the bytes sent, never a re-encoding of them.
 */
export type ApiKeySigner = {
  apiKey: string
  sign: (request: ApiKeySignedRequest) => string | Promise<string>
}

/**
 * The default scheme (docs/sandbox.md, "API-key signature"): hex HMAC-SHA256, with the API secret,
 * of the canonical request string, whose query is the query as sent, its parameters sorted by key.
 * The secret stays inside the closure: it is never logged or put in an error.
 *
 * @example
 * const signer = hmacApiKeySigner({ apiKey: process.env.STOCKROUTE_API_KEY, apiSecret: process.env.STOCKROUTE_API_SECRET })
 */
export function hmacApiKeySigner(parameters: { apiKey: string; apiSecret: string }): ApiKeySigner {
  const { apiKey, apiSecret } = parameters
  return { apiKey, sign: (request) => signApiKeyRequest(apiSecret, request) }
}
