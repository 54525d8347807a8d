import { randomUUID } from 'node:crypto'
import { connect } from 'node:net'
import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { controlRoutes, type DaemonStatus } from '../../../../src/daemon/healthRoutes.js'
import { createDaemonMetrics } from '../../../../src/daemon/metrics.js'
import { type CallOptions, controlPlaneOf, useControlServer } from '../../../helpers/controlApi.js'
import { eventually } from '../../../helpers/eventually.js'
import { chainWithRouter } from '../../../helpers/localChains.js'

// The control surface as anyone on the machine reaches it, without the token, and as a client
// that misbehaves: real HTTP on loopback (fetch, and raw sockets for what fetch cannot send) to a
// control server with a token, the control plane, the dashboard's routes and the daemon's own
// /health and /metrics, over a real engine, ledger file, sandbox service and anvil chains.

const token = `token-${randomUUID()}`
/** Every line the server logged, parsed (pino at debug). */
const logged: { level: number; msg: string; [field: string]: unknown }[] = []
const metrics = createDaemonMetrics()
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
    extraRoutes: controlRoutes({ status, engine: engine.engine, ledger: engine.ledger, metrics }),
    logger: pino({ level: 'debug' }, { write: (line: string) => logged.push(JSON.parse(line)) }),
    onClientError: (reason) => metrics.recordControlClientError(reason),
  }),
})

const anonymous: CallOptions = { auth: null }

/** The value of `stockroute_control_client_errors_total{reason}` now (0 when absent). */
async function clientErrors(reason: string): Promise<number> {
  const text = await metrics.render()
  const line = text
    .split('\n')
    .find((candidate) => candidate.startsWith(`stockroute_control_client_errors_total{reason="${reason}"}`))
  return line ? Number(line.split(' ').at(-1)) : 0
}

/**
 * Sends `head` (a request line and headers) and then `body` over a raw connection, and closes it:
 * what a client that gives up halfway, or a scanner, does. Resolves with what the server answered.
 */
function sendRaw(url: string, head: string, body = ''): Promise<string> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve, reject) => {
    const socket = connect(Number(port), hostname)
    let answer = ''
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString()
    })
    socket.once('error', (error: NodeJS.ErrnoException) =>
      error.code === 'ECONNRESET' ? resolve(answer) : reject(error),
    )
    socket.once('close', () => resolve(answer))
    socket.once('connect', () => {
      socket.write(head)
      socket.end(body)
    })
  })
}

/** A POST whose head promises 50 bytes of JSON, of which 4 come before the connection closes. */
const cutShortPost = (path: string, headers: Record<string, string> = {}) =>
  [
    `POST ${path} HTTP/1.1`,
    'Host: 127.0.0.1',
    'Content-Type: application/json',
    'Content-Length: 50',
    ...Object.entries(headers).map(([name, value]) => `${name}: ${value}`),
    '',
    '',
  ].join('\r\n')

const errorLines = () => logged.filter((line) => line.level >= 40)

describe('a request aborted or malformed by the client', () => {
  it('is a client error: counted, logged at debug at most, never a 500 or an error-level line', async () => {
    const url = () => server().url
    const targets = [
      { path: '/dashboard/login', headers: {} },
      { path: '/v1/kill-switch/halt', headers: {} },
      { path: '/v1/swaps', headers: { 'Idempotency-Key': 'cut-short' } },
      { path: '/v1/kill-switch/halt', headers: { Authorization: `Bearer ${token}` } },
      {
        path: '/v1/swaps',
        headers: { Authorization: `Bearer ${token}`, 'Idempotency-Key': 'cut-short-with-token' },
      },
    ]
    const first = await clientErrors('aborted')
    for (const [index, target] of targets.entries()) {
      const before = await clientErrors('aborted')
      await sendRaw(url(), cutShortPost(target.path, target.headers), '{"re')
      await eventually(async () => (await clientErrors('aborted')) > before)
      expect(await clientErrors('aborted'), `${target.path} (${index})`).toBe(before + 1)
    }
    // Each counted once: neither the HTTP layer nor the request counts it again later. One more cut
    // request, counted after the others were handled, marks the point by which a second count of
    // any of them would have come.
    await sendRaw(url(), cutShortPost('/dashboard/login', {}), '{"re')
    await eventually(async () => (await clientErrors('aborted')) > first + targets.length)
    expect(await clientErrors('aborted')).toBe(first + targets.length + 1)
    expect(logged.filter((line) => line.msg === 'control API: client error')).toHaveLength(targets.length + 1)
    expect(errorLines()).toEqual([])
    expect(logged.filter((line) => line.msg === 'control API request' && Number(line.status) >= 500)).toEqual(
      [],
    )
    // Nothing was halted or recorded from the halves.
    expect(testEngine().ledger.risk.isHalted()).toBe(false)
    expect(testEngine().ledger.executions.getExecutionByIntent('api:cut-short-with-token')).toBeUndefined()

    // A request the HTTP parser refuses: 400, counted as malformed, no error line.
    const malformedBefore = await clientErrors('malformed')
    const answer = await sendRaw(url(), 'GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nBad Header\r\n\r\n')
    expect(answer).toMatch(/^HTTP\/1\.1 400 /)
    await eventually(async () => (await clientErrors('malformed')) > malformedBefore)
    expect(await clientErrors('malformed')).toBe(malformedBefore + 1)
    expect(errorLines()).toEqual([])

    // The server still answers as before.
    expect((await call('/v1/kill-switch')).status).toBe(200)
  })
})

describe('logout', () => {
  const login = async () => {
    const reply = await call('/dashboard/login', { ...anonymous, body: { token } })
    expect(reply.status, reply.text).toBe(200)
    const cookie = (reply.headers.get('set-cookie') ?? '').split(';')[0] ?? ''
    expect(cookie).toMatch(/^stockroute_session=./)
    return { cookie, csrfToken: String(reply.body.csrfToken) }
  }

  it('ends the session on the daemon whatever the headers: its cookie then gets 401', async () => {
    for (const headers of [
      {}, // no CSRF header
      { 'x-csrf-token': 'not-the-session-s' }, // a wrong one
    ]) {
      const { cookie } = await login()
      expect((await call('/v1/kill-switch', { ...anonymous, headers: { cookie } })).status).toBe(200)
      const out = await call('/dashboard/logout', {
        ...anonymous,
        method: 'POST',
        headers: { cookie, ...headers },
      })
      expect(out.status).toBe(200)
      expect(out.body).toEqual({ loggedOut: true })
      expect(out.headers.get('set-cookie')).toMatch(/Max-Age=0/)
      const after = await call('/v1/kill-switch', { ...anonymous, headers: { cookie } })
      expect(after.status, after.text).toBe(401)
      const session = await call('/dashboard/session', { ...anonymous, headers: { cookie } })
      expect(session.body).toEqual({ authenticated: false })
    }
    // With its CSRF header, as the dashboard logs out, too.
    const { cookie, csrfToken } = await login()
    await call('/dashboard/logout', {
      ...anonymous,
      method: 'POST',
      headers: { cookie, 'x-csrf-token': csrfToken },
    })
    expect((await call('/v1/kill-switch', { ...anonymous, headers: { cookie } })).status).toBe(401)
  })
})

describe('without the token the daemon says nothing it does not need to', () => {
  it('answers an unknown path a short 404, without the routes or the path', async () => {
    const long = `/${'a'.repeat(10_000)}`
    for (const path of ['/nothing', long, '/dashboard/nothing.js', '/v1x']) {
      const reply = await call(path, anonymous)
      expect(reply.status, path).toBe(404)
      expect(reply.body.code).toBe('NOT_FOUND')
      expect(reply.text.length, path).toBeLessThan(300)
      expect(reply.text).not.toContain('/v1/executions')
      expect(reply.text).not.toContain(path.slice(1, 40))
    }
    // A wrong token is no token.
    const wrong = await call('/nothing', { auth: 'Bearer nope' })
    expect(wrong.text).not.toContain('/v1/executions')
  })

  it('keeps 404s helpful with the token, but never echoes a long path', async () => {
    const reply = await call('/nothing')
    expect(reply.status).toBe(404)
    expect(reply.body.message).toContain('GET /v1/executions')
    expect(reply.body.message).toContain('/nothing')
    const long = await call(`/${'b'.repeat(10_000)}`)
    expect(long.status).toBe(404)
    expect(long.text.length).toBeLessThan(3_000)
    expect(long.text).not.toContain('b'.repeat(200))
    // A path of a known route with the wrong method (405) is not echoed whole either.
    const wrongMethod = await call(`/dashboard/${'c'.repeat(10_000)}`, { ...anonymous, method: 'POST' })
    expect(wrongMethod.status).toBe(405)
    expect(wrongMethod.text.length).toBeLessThan(300)
  })

  it('answers /health with liveness only; the details need the token or a dashboard session', async () => {
    const open = await call('/health', anonymous)
    expect(open.status).toBe(200)
    expect(open.body).toEqual({ status: 'ok' })
    const wallet = testEngine().engine.chains.get(chainWithRouter().chainId)?.wallets[0]?.account.address
    expect(wallet).toBeDefined()
    expect(open.text.toLowerCase()).not.toContain(String(wallet).toLowerCase())
    expect((await call('/health', { auth: 'Bearer nope' })).body).toEqual({ status: 'ok' })

    const withToken = await call('/health')
    expect(withToken.status).toBe(200)
    expect(withToken.body).toMatchObject({ status: 'ok', halted: null, executionsInFlight: 0 })
    expect(JSON.stringify(withToken.body.chains).toLowerCase()).toContain(String(wallet).toLowerCase())

    const session = await call('/dashboard/login', { ...anonymous, body: { token } })
    const cookie = (session.headers.get('set-cookie') ?? '').split(';')[0] ?? ''
    const withSession = await call('/health', { ...anonymous, headers: { cookie } })
    expect(withSession.body.chains).toEqual(withToken.body.chains)

    // Stopping: 503 either way, and still no detail without the token.
    status.state = 'stopping'
    try {
      const stopping = await call('/health', anonymous)
      expect(stopping.status).toBe(503)
      expect(stopping.body).toEqual({ status: 'stopping' })
      expect((await call('/health')).body).toMatchObject({ status: 'stopping', chains: expect.any(Array) })
    } finally {
      status.state = 'running'
    }
  })
})

describe('query parameters named like built-ins', () => {
  it('are refused as unknown parameters, never as "given more than once"', async () => {
    for (const name of ['__proto__', 'constructor', 'toString', 'hasOwnProperty']) {
      for (const path of ['/v1/executions', '/v1/kill-switch', '/v1/quotes']) {
        const reply = await call(`${path}?${name}=1`)
        expect(reply.status, `${path}?${name}`).toBe(400)
        expect(reply.body.details, `${path}?${name}`).toContainEqual({
          field: name,
          problem: expect.stringMatching(/is not a query parameter|takes no query parameter/),
        })
        expect(reply.text, `${path}?${name}`).not.toContain('more than once')
      }
    }
    // A parameter given twice still is.
    const twice = await call('/v1/executions?limit=1&limit=2')
    expect(twice.body.details).toContainEqual({
      field: 'limit',
      problem: 'is given more than once: give it once',
    })
  })
})
