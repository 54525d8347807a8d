import { type ApiKeySignedRequest, signApiKeyRequest } from '../../domain/apiKeySignature.js'

/**
 * Signs API-key requests. Pluggable: a deployment whose service signs differently (or keeps the
 * secret in an HSM) provides its own.
 */
export type ApiKeySigner = {
  apiKey: string
  sign: (request: ApiKeySignedRequest) => string | Promise<string>
}

/**
 * DESIGN.md's default scheme: hex HMAC-SHA256 of the canonical request string with the API secret.
 * The secret stays inside the closure: it is never logged or put in an error.
 *
 * @example
 * const signer = hmacApiKeySigner({ apiKey: process.env.STOCKROUTE_API_KEY, apiSecret: process.env.STOCKROUTE_API_SECRET })
 */
export function hmacApiKeySigner(parameters: { apiKey: string; apiSecret: string }): ApiKeySigner {
  const { apiKey, apiSecret } = parameters
  return { apiKey, sign: (request) => signApiKeyRequest(apiSecret, request) }
}
