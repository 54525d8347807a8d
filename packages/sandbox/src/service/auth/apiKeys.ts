import { randomBytes, timingSafeEqual } from 'node:crypto'
import { signApiKeyRequest } from '@stockroute/client/domain/apiKeySignature.js'
import { isAddress } from 'viem'
import { badRequest, unauthorized } from '../errors.js'
import type { SandboxRequest } from '../request.js'

export type ApiCredential = {
  apiKey: string
  apiSecret: string
  /** Sustained requests per second this key may make; bursts up to twice as much. */
  requestsPerSecond: number
}

/** Accepted distance between X-API-Timestamp and the server's clock. */
export const apiTimestampSkewMs = 30_000

/** Creates a random credential (the sandbox prints it at start). */
export function createApiCredential(requestsPerSecond: number): ApiCredential {
  return {
    apiKey: `sk_sandbox_${randomBytes(12).toString('hex')}`,
    apiSecret: randomBytes(32).toString('hex'),
    requestsPerSecond,
  }
}

/** A sandbox request as the signature check reads it (kept as a name for the verifier's callers). */
export type SignedSandboxRequest = SandboxRequest

/** The query the signature is checked against: the raw query exactly as received. */
export function signedQueryOf(request: SignedSandboxRequest): string {
  return request.rawQuery
}

export type ApiKeyIdentity = { kind: 'apiKey'; credential: ApiCredential; makerAddress: `0x${string}` | null }

/**
 * Verifies X-API-Key, X-API-Timestamp and X-API-Signature against the signing scheme of
 * docs/sandbox.md: the query is signed exactly as sent, its parameters sorted by key.
 * `requireMaker`: X-Maker-Addr must be present (maker endpoints). When present it is always part
 * of the signed string.
 */
export function verifyApiKeyRequest(
  request: SignedSandboxRequest,
  credentials: ReadonlyMap<string, ApiCredential>,
  nowMs: number,
  requireMaker: boolean,
): ApiKeyIdentity {
  const apiKey = header(request, 'x-api-key')
  const timestampText = header(request, 'x-api-timestamp')
  const signature = header(request, 'x-api-signature')
  const makerHeader = header(request, 'x-maker-addr')
  if (!apiKey) throw unauthorized('Missing API key', 'send X-API-Key, X-API-Timestamp and X-API-Signature')
  const credential = credentials.get(apiKey)
  if (!credential) throw unauthorized('Invalid API key', 'the X-API-Key value is not a known key')
  if (!timestampText || !/^\d{1,16}$/.test(timestampText)) {
    throw unauthorized('Invalid timestamp', 'X-API-Timestamp must be Unix time in milliseconds')
  }
  const timestamp = Number(timestampText)
  if (Math.abs(timestamp - nowMs) > apiTimestampSkewMs) {
    throw unauthorized(
      'Timestamp expired',
      `X-API-Timestamp is ${timestamp - nowMs} ms from the server clock (allowed: ±${apiTimestampSkewMs} ms); ` +
        "correct the client's clock from the Date header",
    )
  }
  if (requireMaker && !makerHeader) {
    throw unauthorized('Missing maker address', 'maker endpoints require the X-Maker-Addr header')
  }
  if (makerHeader && !isAddress(makerHeader, { strict: false })) {
    throw badRequest('X-Maker-Addr: must be a 0x address of 40 hex digits')
  }
  if (!signature) throw unauthorized('Invalid signature', 'X-API-Signature is missing')
  const expected = signApiKeyRequest(credential.apiSecret, {
    timestamp,
    method: request.method,
    path: request.path,
    query: signedQueryOf(request),
    makerAddress: makerHeader,
    body: request.body,
  })
  if (!constantTimeEqual(signature.toLowerCase(), expected)) {
    throw unauthorized(
      'Invalid signature',
      'X-API-Signature must be hex HMAC-SHA256, with the API secret, of ' +
        'timestamp\\nMETHOD\\npath?sorted-query\\nmaker-address-lowercase-or-empty\\nsha256(body)-or-empty, ' +
        'where sorted-query is the query exactly as sent (percent-encoding kept), its parameters sorted by key',
    )
  }
  return {
    kind: 'apiKey',
    credential,
    makerAddress: makerHeader ? (makerHeader.toLowerCase() as `0x${string}`) : null,
  }
}

export function header(request: SandboxRequest, name: string): string | undefined {
  const value = request.headers[name]
  return Array.isArray(value) ? value[0] : value
}

function constantTimeEqual(a: string, b: string): boolean {
  const left = Buffer.from(a)
  const right = Buffer.from(b)
  return left.length === right.length && timingSafeEqual(left, right)
}
