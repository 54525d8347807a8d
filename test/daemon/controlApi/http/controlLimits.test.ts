import { randomUUID } from 'node:crypto'
import { setImmediate as nextTurn } from 'node:timers/promises'
import { describe, expect, it } from 'vitest'
import { createReadGate } from '../../../../src/daemon/controlApi/http/readGate.js'
import { controlRoutes, type DaemonStatus } from '../../../../src/daemon/healthRoutes.js'
import { createDaemonMetrics } from '../../../../src/daemon/metrics.js'
import {
  type CallOptions,
  controlPlaneOf,
  expectBadRequest,
  useControlServer,
} from '../../../helpers/controlApi.js'
import { eventually } from '../../../helpers/eventually.js'
import { chainWithRouter } from '../../../helpers/localChains.js'

// The control API's limits over real HTTP on loopback (a control server with a token, the control
// plane, the dashboard's routes and /health, over a real engine, ledger file, sandbox service and
// anvil chains): event streams capped per token or session and overall, the next refused with 429
// and a reason; heavy reads taking turns, refused with 429 beyond their queue; pages bounded.
// Caps and statuses are asserted, never durations.

const token = `token-${randomUUID()}`
const limits = { maxEventStreams: 6, maxEventStreamsPerToken: 4, maxQueuedReads: 40 }
const status: DaemonStatus = {
  state: 'running',
  startedAt: Date.now(),
  lastTick: undefined,
  lastReconciliation: undefined,
}

const { testEngine, server, call } = useControlServer({
  engine: { funding: { asset: '5000' } },
  token,
  server: (engine) => ({
    controlPlane: controlPlaneOf(engine),
    dashboard: { ledger: engine.ledger, now: Date.now, lastReconciliation: () => undefined },
    extraRoutes: controlRoutes({
      status,
      engine: engine.engine,
      ledger: engine.ledger,
      metrics: createDaemonMetrics(),
    }),
    ...limits,
  }),
})

const bearer = { authorization: `Bearer ${token}` }

/**
 * Opens `GET /v1/events` with `headers`; a 200 stays open until `close()`. The Response is kept:
 * fetch cancels the unread body of a Response that was garbage collected, which would close the
 * stream and free its place on the server in the middle of a test.
 */
async function openStream(headers: Record<string, string>) {
  const controller = new AbortController()
  const response = await fetch(`${server().url}/v1/events`, { headers, signal: controller.signal })
  const body =
    response.status === 200 ? undefined : ((await response.json()) as { code: string; message: string })
  return {
    status: response.status,
    retryAfter: response.headers.get('retry-after'),
    body,
    response,
    close: () => controller.abort(),
  }
}

describe('event streams', () => {
  it('200 at once with one token: as many as the per-token cap open, every other one gets 429 with a reason', async () => {
    const streams = await Promise.all(Array.from({ length: 200 }, () => openStream(bearer)))
    try {
      const open = streams.filter((stream) => stream.status === 200)
      const refused = streams.filter((stream) => stream.status === 429)
      expect(open).toHaveLength(limits.maxEventStreamsPerToken)
      expect(refused).toHaveLength(200 - limits.maxEventStreamsPerToken)
      expect(refused[0]).toMatchObject({
        retryAfter: '5',
        body: {
          code: 'TOO_MANY_REQUESTS',
          message: expect.stringContaining(
            `${limits.maxEventStreamsPerToken} event streams are already open with this token or session, the most one may hold (api.maxEventStreamsPerToken)`,
          ),
        },
      })
    } finally {
      for (const stream of streams) stream.close()
    }
  })

  it('a dashboard session has its own cap, the daemon an overall one; a closed stream frees its place', async () => {
    const login = await call('/dashboard/login', { auth: null, body: { token } })
    expect(login.status, login.text).toBe(200)
    const cookie = { cookie: (login.headers.get('set-cookie') ?? '').split(';')[0] ?? '' }

    const streams: Awaited<ReturnType<typeof openStream>>[] = []
    try {
      // Earlier tests' streams may still be closing on the server: wait for their places.
      await eventually(async () => {
        const stream = await openStream(bearer)
        if (stream.status === 200) streams.push(stream)
        else stream.close()
        return stream.status === 200
      })
      for (let i = 1; i < limits.maxEventStreamsPerToken; i += 1) streams.push(await openStream(bearer))
      expect(streams.map((stream) => stream.status)).toEqual([200, 200, 200, 200])
      // The token is at its cap; the session is not, until the daemon's overall cap (6) is reached.
      expect((await openStream(bearer)).status).toBe(429)
      streams.push(await openStream(cookie), await openStream(cookie))
      expect(streams.slice(-2).map((stream) => stream.status)).toEqual([200, 200])
      const overall = await openStream(cookie)
      expect(overall.status).toBe(429)
      expect(overall.body?.message).toContain(
        `${limits.maxEventStreams} event streams are already open on this daemon, the most it serves at once (api.maxEventStreams)`,
      )

      // One of the token's streams ends: its place is free for the next, once the server saw it go.
      streams.shift()?.close()
      let reopened: Awaited<ReturnType<typeof openStream>> | undefined
      await eventually(async () => {
        reopened?.close()
        reopened = await openStream(bearer)
        return reopened.status === 200
      })
      expect(reopened?.status).toBe(200)
      if (reopened) streams.push(reopened)
    } finally {
      for (const stream of streams) stream.close()
    }
  })
})

describe('heavy reads', () => {
  it('a burst beyond api.maxQueuedReads: the ones queued answer 200, the rest 429 with Retry-After; /health answers meanwhile', async () => {
    const burst = Array.from({ length: 150 }, () =>
      fetch(`${server().url}/v1/executions?limit=200`, { headers: bearer }).then(async (response) => ({
        status: response.status,
        retryAfter: response.headers.get('retry-after'),
        body: (await response.json()) as { code?: string; message?: string },
      })),
    )
    // /health, outside the gate, is answered while the reads take their turns.
    const health = await fetch(`${server().url}/health`)
    expect(health.status).toBe(200)
    const replies = await Promise.all(burst)
    const counts = { ok: 0, refused: 0 }
    for (const reply of replies) {
      expect([200, 429]).toContain(reply.status)
      counts[reply.status === 200 ? 'ok' : 'refused'] += 1
    }
    expect(counts.ok).toBeGreaterThanOrEqual(limits.maxQueuedReads)
    expect(counts.refused).toBeGreaterThan(0)
    expect(replies.find((reply) => reply.status === 429)).toMatchObject({
      retryAfter: '1',
      body: {
        code: 'TOO_MANY_REQUESTS',
        message: expect.stringContaining(
          `${limits.maxQueuedReads} heavy reads (executions, reports, series) are already waiting their turn on this daemon (api.maxQueuedReads)`,
        ),
      },
    })
  })

  it('the gate runs one read per turn of the event loop, so that other work is handled between two reads', async () => {
    const gate = createReadGate({ maxQueued: 10 })
    const order: string[] = []
    const signal = new AbortController().signal
    const first = gate.run(() => order.push('read 1'), signal)
    const second = gate.run(() => order.push('read 2'), signal)
    expect(gate.queued).toBe(2)
    // Other work that arrives meanwhile (a /health request, a receipt): one turn of the loop later.
    void nextTurn().then(() => order.push('other work'))
    await Promise.all([first, second])
    expect(order).toEqual(['read 1', 'other work', 'read 2'])
    expect(gate.queued).toBe(0)
  })

  it("a read whose client left before its turn is never run, and fails as the client's error", async () => {
    const gate = createReadGate({ maxQueued: 10 })
    let ran = 0
    const left = new AbortController()
    const blocker = gate.run(() => (ran += 1), new AbortController().signal)
    const waiting = gate.run(() => (ran += 100), left.signal).catch((error: unknown) => error)
    left.abort(new Error('the client closed the connection'))
    await blocker
    expect(await waiting).toMatchObject({ status: 400, clientError: 'aborted' })
    expect(ran).toBe(1)
  })
})

describe('bounded pages', () => {
  it('GET /v1/executions: 100 by default, at most 200 a page, the rest by cursor', async () => {
    const { ledger } = testEngine()
    const chainId = chainWithRouter().chainId
    for (let i = 0; i < 250; i += 1)
      ledger.executions.createExecution({
        intentId: `bounded-page-${i}`,
        chainId,
        ticker: 'AAPL',
        exchange: 0,
        side: 'buy',
        amountIn: '10',
        amountType: 'stablecoin',
      })
    const byDefault = await call('/v1/executions')
    expect(byDefault.status, byDefault.text).toBe(200)
    expect(byDefault.body.executions).toHaveLength(100)
    const largest = await call('/v1/executions', { query: { limit: '200' } })
    expect(largest.body.executions).toHaveLength(200)
    expect(largest.body.nextCursor).toEqual(expect.any(String))
    const rest = await call('/v1/executions', { query: { limit: '200', cursor: largest.body.nextCursor } })
    expect(rest.body.executions.length).toBeGreaterThanOrEqual(50)

    const tooLarge = await call('/v1/executions', { query: { limit: '201' } })
    expectBadRequest(tooLarge, ['limit'])
    expect(tooLarge.body.details[0].problem).toBe('must be from 1 to 200: page with cursor for more')
  })

  it('GET /v1/reports/:name: at most 10000 rows, and never every row (`all` is refused)', async () => {
    expect((await call('/v1/reports/executions', { query: { limit: '10000' } })).status).toBe(200)
    expectBadRequest(await call('/v1/reports/executions', { query: { limit: '10001' } }), ['limit'])
    const all: CallOptions = { query: { all: 'true' } }
    const refused = await call('/v1/reports/fills', all)
    expectBadRequest(refused, ['all'])
    expect(refused.body.details[0].problem).toContain('stockroute report <name> --all')
  })
})
