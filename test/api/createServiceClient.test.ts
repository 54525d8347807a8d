import { createServer } from 'node:http'
import { type AddressInfo, createServer as createNetServer } from 'node:net'
import { getChains } from '@stockroute/client/api/actions/getChains.js'
import { ServiceUnreachableError } from '@stockroute/client/api/connectionFailure.js'
import { createServiceClient, type ServiceRequest } from '@stockroute/client/api/createServiceClient.js'
import {
  ServiceAuthError,
  ServiceTimeoutError,
  ServiceTransportError,
} from '@stockroute/client/api/errors.js'
import { createRequestLimiter } from '@stockroute/client/api/limiter.js'
import { spreadTablesJsonByMarket } from '@stockroute/client/domain/spreadTables.js'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import { useSandboxService } from '../helpers/sandboxService.js'

/** Wraps the real fetch to record what came back for each request (counting, not mocking). */
function recordingFetch() {
  const log: { status: number; path: string }[] = []
  const wrapped: typeof fetch = async (input, init) => {
    const response = await fetch(input, init)
    log.push({ status: response.status, path: new URL(String(input)).pathname })
    return response
  }
  return { fetch: wrapped, log }
}

const spreadTables: ServiceRequest<unknown> = {
  method: 'GET',
  path: '/market/v1/hkex/spread-tables',
  auth: 'institution',
  schema: z.unknown(),
}
const positions: ServiceRequest<unknown> = {
  method: 'GET',
  path: '/api/v1/positions',
  auth: 'maker',
  schema: z.unknown(),
}

describe('rate limits', () => {
  // The strict service's clock moves only when the client says it waits out a Retry-After.
  let strictNowMs = Date.now()
  const strict = useSandboxService({ requestsPerSecond: 1, clock: { now: () => strictNowMs } })
  const standard = useSandboxService()

  it('after a 429 the limiter is paused for Retry-After before the next request, and the call still succeeds', async () => {
    const events: string[] = []
    // A limiter of this test's own, far faster than the key's real rate, to provoke the 429; its
    // pause holds every request for the time given (limiter.test.ts drives its clock).
    const limiter = createRequestLimiter({ requestsPerSecond: 1000 })
    const client = createServiceClient({
      baseUrl: strict().url,
      credentials: strict().credential,
      limiter: {
        schedule: (job, signal) => limiter.schedule(job, signal),
        pauseFor: (ms) => {
          events.push(`pause ${ms} ms`)
          strictNowMs += ms
          limiter.pauseFor(ms)
        },
      },
      fetch: async (input, init) => {
        const response = await fetch(input, init)
        events.push(String(response.status))
        return response
      },
    })
    for (let i = 0; i < 3; i++)
      expect(await client.request(spreadTables)).toEqual(spreadTablesJsonByMarket.hkex)
    // A burst of two (twice the rate), the third refused for 1 s: the pause comes before its retry.
    expect(events).toEqual(['200', '200', '429', 'pause 1000 ms', '200'])
  })

  it('a burst of 500 calls through the shared limiter triggers no 429 at all', async () => {
    const recorder = recordingFetch()
    const client = createServiceClient({
      baseUrl: standard().url,
      credentials: standard().credential,
      requestsPerSecond: 95,
      budgetMs: 60_000,
      fetch: recorder.fetch,
    })
    const results = await Promise.allSettled(Array.from({ length: 500 }, () => client.request(spreadTables)))
    expect(results.filter((r) => r.status === 'rejected')).toEqual([])
    expect(recorder.log).toHaveLength(500)
    expect(recorder.log.filter((entry) => entry.status === 429)).toEqual([])
  }, 30_000)
})

describe('wallet login (JWT)', () => {
  let offsetMs = 0
  const sandbox = useSandboxService({ clock: { now: () => Date.now() + offsetMs }, requestsPerSecond: 1000 })

  it('when the JWT expires mid-run: exactly one new login, and no call fails', async () => {
    const account = privateKeyToAccount(generatePrivateKey())
    const client = createServiceClient({
      baseUrl: sandbox().url,
      wallet: { account, chainId: 31337 },
      requestsPerSecond: 500,
    })
    const noncesBefore = sandbox().context.usedLoginNonces.size
    await Promise.all(Array.from({ length: 10 }, () => client.request(positions)))
    expect(client.session?.loginCount()).toBe(1)

    offsetMs += 24 * 3600_000 + 5_000 // the service's clock passes the token's expiry
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => client.request(positions)))
    expect(results.filter((r) => r.status === 'rejected')).toEqual([])
    expect(client.session?.loginCount()).toBe(2)
    expect(sandbox().context.usedLoginNonces.size - noncesBefore).toBe(2)
  })

  it('a wallet refused at login surfaces the service rule, not a generic failure', async () => {
    const account = privateKeyToAccount(generatePrivateKey())
    const client = createServiceClient({ baseUrl: sandbox().url, wallet: { account, chainId: 1 } })
    await expect(client.request(positions)).rejects.toThrow(/Chain ID mismatch/)
  })
})

describe('clock skew', () => {
  const ahead = useSandboxService({ clock: { now: () => Date.now() + 90_000 }, requestsPerSecond: 1000 })

  it('corrects API timestamps from the Date header, so a 90 s skew stops failing after one reply', async () => {
    const blind = createServiceClient({ baseUrl: ahead().url, credentials: ahead().credential })
    await expect(blind.request(spreadTables)).rejects.toBeInstanceOf(ServiceAuthError)
    // The refused reply carried a Date header: the same client now signs with corrected time.
    expect(Math.abs(blind.clock.offsetMs() - 90_000)).toBeLessThan(2_000)
    expect(await blind.request(spreadTables)).toEqual(spreadTablesJsonByMarket.hkex)

    const learning = createServiceClient({ baseUrl: ahead().url, credentials: ahead().credential })
    await getChains(learning)
    expect(await learning.request(spreadTables)).toEqual(spreadTablesJsonByMarket.hkex)
  })
})

describe('retries and time budget', () => {
  it('a refused connection is not retried: one attempt, an error that says nothing listens there', async () => {
    const server = createServer()
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const { port } = server.address() as AddressInfo
    await new Promise((resolve) => server.close(resolve)) // nothing listens there now
    const recorder = { attempts: 0 }
    const client = createServiceClient({
      baseUrl: `http://127.0.0.1:${port}`,
      retryBaseDelayMs: 20,
      fetch: async (input, init) => {
        recorder.attempts += 1
        return fetch(input, init)
      },
    })
    const error = await getChains(client, {}, { budgetMs: 5_000 }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ServiceUnreachableError)
    // Still a transport error for code that handles an unreachable service.
    expect(error).toBeInstanceOf(ServiceTransportError)
    expect((error as ServiceUnreachableError).code).toBe('SERVICE_UNREACHABLE')
    expect((error as ServiceUnreachableError).failure).toMatchObject({
      kind: 'refused',
      code: 'ECONNREFUSED',
    })
    expect((error as Error).message).toBe(
      `GET /api/v1/chains: nothing listens on http://127.0.0.1:${port} (connection refused); start the service, or fix service.baseUrl`,
    )
    expect(recorder.attempts).toBe(1)
  })

  it('an unknown host is not retried either', async () => {
    // A label of 64 characters cannot be put in a DNS query (63 at most): the resolver refuses the
    // name itself (ENOTFOUND) without asking a server, with or without a network. Any other name
    // under .invalid gets EAI_AGAIN (transient, retried) on a machine whose resolver is unreachable.
    const host = `${'x'.repeat(64)}.invalid`
    const recorder = { attempts: 0 }
    const client = createServiceClient({
      baseUrl: `http://${host}`,
      retryBaseDelayMs: 20,
      fetch: async (input, init) => {
        recorder.attempts += 1
        return fetch(input, init)
      },
    })
    const error = await getChains(client, {}, { budgetMs: 5_000 }).catch((e: unknown) => e)
    expect(error).toBeInstanceOf(ServiceUnreachableError)
    expect((error as ServiceUnreachableError).failure.kind).toBe('not-found')
    expect((error as ServiceUnreachableError).failure).toEqual({ kind: 'not-found', code: 'ENOTFOUND', host })
    expect((error as Error).message).toBe(
      `GET /api/v1/chains: the host of http://${host} (${host}) is not found (DNS ENOTFOUND); fix service.baseUrl, or this machine's DNS`,
    )
    expect(recorder.attempts).toBe(1)
  })

  it('a connection reset is transient: retried with backoff, then given up at the budget', async () => {
    let connections = 0
    const server = createNetServer((socket) => {
      connections += 1
      socket.destroy() // accepts, then hangs up before any reply
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const { port } = server.address() as AddressInfo
      const client = createServiceClient({ baseUrl: `http://127.0.0.1:${port}`, retryBaseDelayMs: 20 })
      const error = await getChains(client, {}, { budgetMs: 800 }).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(ServiceTimeoutError)
      expect((error as ServiceTimeoutError).cause).toBeInstanceOf(ServiceTransportError)
      expect((error as ServiceTimeoutError).cause).not.toBeInstanceOf(ServiceUnreachableError)
      expect(connections).toBeGreaterThan(2)
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it('retries a read that got a 500 and succeeds when the service recovers', async () => {
    let calls = 0
    const server = createServer((_request, response) => {
      calls += 1
      const body =
        calls < 3
          ? JSON.stringify({ code: 500, message: 'Internal server error', details: '' })
          : JSON.stringify({ code: 0, data: { chains: [], default_chain_id: 1 } })
      response.writeHead(calls < 3 ? 500 : 200, { 'content-type': 'application/json' }).end(body)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const { port } = server.address() as AddressInfo
      const client = createServiceClient({ baseUrl: `http://127.0.0.1:${port}`, retryBaseDelayMs: 10 })
      await expect(getChains(client)).resolves.toEqual({ chains: [], defaultChainId: 1 })
      expect(calls).toBe(3)
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it('never retries a non-idempotent call (POST): one attempt, the error surfaces', async () => {
    let calls = 0
    const server = createServer((_request, response) => {
      calls += 1
      response
        .writeHead(500)
        .end(JSON.stringify({ code: 500, message: 'Internal server error', details: '' }))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const { port } = server.address() as AddressInfo
      const client = createServiceClient({ baseUrl: `http://127.0.0.1:${port}`, retryBaseDelayMs: 10 })
      const post = {
        method: 'POST' as const,
        path: '/api/v1/makers/connect',
        auth: 'public' as const,
        body: {},
        schema: z.unknown(),
      }
      await expect(client.request(post)).rejects.toThrow(/failed with 500/)
      expect(calls).toBe(1)
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it('stops at once when the caller aborts', async () => {
    const server = createServer(() => {
      // never answers
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const { port } = server.address() as AddressInfo
      const client = createServiceClient({ baseUrl: `http://127.0.0.1:${port}` })
      const controller = new AbortController()
      const pending = getChains(client, {}, { signal: controller.signal })
      setTimeout(() => controller.abort(new Error('caller gave up')), 50)
      await expect(pending).rejects.toThrow('caller gave up')
    } finally {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    }
  })

  it('reports a reply that does not match the schema, naming the field', async () => {
    const server = createServer((_request, response) => {
      response
        .writeHead(200)
        .end(JSON.stringify({ code: 0, data: { chains: [{ chain_id: 'one' }], default_chain_id: 1 } }))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    try {
      const { port } = server.address() as AddressInfo
      const client = createServiceClient({ baseUrl: `http://127.0.0.1:${port}` })
      await expect(getChains(client)).rejects.toThrow(/unexpected reply: chains\.0\.chain_id/)
    } finally {
      await new Promise((resolve) => server.close(resolve))
    }
  })
})
