import { createServer, type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import { type ApiKeySigner, hmacApiKeySigner } from '@stockroute/client/api/auth/apiKeySigner.js'
import { createServiceClient } from '@stockroute/client/api/createServiceClient.js'
import { createRequestLimiter } from '@stockroute/client/api/limiter.js'
import { rawQueryOf, signApiKeyRequest } from '@stockroute/client/domain/apiKeySignature.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { z } from 'zod'

/** A real HTTP server on loopback that records each request target and headers as received. */
const received: { target: string; headers: IncomingHttpHeaders }[] = []
const server = createServer((incoming, outgoing) => {
  received.push({ target: incoming.url ?? '', headers: incoming.headers })
  outgoing.writeHead(200, { 'content-type': 'application/json' })
  outgoing.end(JSON.stringify({ code: 0, data: {} }))
})
let baseUrl = ''
beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(async () => {
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

const apiSecret = 'b'.repeat(64)
const query = { symbols: 'AAPL,MSFT', market: 'usex', note: "a b!'()~*", ticker: 'BRK.B' }

function quoteCall(signer: ApiKeySigner) {
  const client = createServiceClient({
    baseUrl,
    credentials: { signer },
    limiter: createRequestLimiter({ requestsPerSecond: 1000 }),
  })
  return client.request({
    method: 'GET',
    path: '/market/v1/tickers/quotes',
    query,
    auth: 'institution',
    schema: z.unknown(),
  })
}

describe('hmacApiKeySigner', () => {
  it('signs exactly the query string the client sends, sorted by key', async () => {
    received.length = 0
    await quoteCall(hmacApiKeySigner({ apiKey: 'sk_test', apiSecret }))
    const [sent] = received
    if (!sent) throw new Error('the client sent nothing')
    const url = new URL(sent.target, baseUrl)
    const expected = signApiKeyRequest(apiSecret, {
      timestamp: Number(sent.headers['x-api-timestamp']),
      method: 'GET',
      path: url.pathname,
      query: rawQueryOf(sent.target),
    })
    expect(sent.headers['x-api-signature']).toBe(expected)
  })
})
