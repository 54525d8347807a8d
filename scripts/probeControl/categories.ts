// The categories probe:control replays against a running daemon, each a bounded list of requests
// with the statuses that count as holding. Nothing sent here can change the daemon's state, even if
// a check it probes were broken: every POST carries a body its route refuses (`{`, not JSON), and
// the few requests sent with the real token are reads.
import { randomBytes } from 'node:crypto'
import { Worker } from 'node:worker_threads'
import type { CategoryResult, ProbeOutcome, ProbeStatus } from './report.js'
import { openStream, type ProbeBudget, type ProbeReply, send, sendCutShort } from './send.js'

/** What every category needs: where the daemon is, its token, the run's budget. */
export type ProbeContext = { base: string; token: string; budget: ProbeBudget }

/** A route of the control API, as its OpenAPI document names it (`/v1/executions/{id}`). */
export type ProbeRoute = { method: string; path: string }

/** The `/v1` routes when the OpenAPI document cannot be read (the daemon's of this version). */
export const knownRoutes: readonly ProbeRoute[] = [
  { method: 'POST', path: '/v1/swaps' },
  { method: 'GET', path: '/v1/swaps/{id}' },
  { method: 'GET', path: '/v1/quotes' },
  { method: 'GET', path: '/v1/executions' },
  { method: 'GET', path: '/v1/executions/{id}' },
  { method: 'POST', path: '/v1/executions/{id}/cancel' },
  { method: 'GET', path: '/v1/kill-switch' },
  { method: 'POST', path: '/v1/kill-switch/halt' },
  { method: 'POST', path: '/v1/kill-switch/resume' },
  { method: 'GET', path: '/v1/strategies' },
  { method: 'POST', path: '/v1/strategies/{id}/enable' },
  { method: 'POST', path: '/v1/strategies/{id}/disable' },
  { method: 'GET', path: '/v1/positions' },
  { method: 'GET', path: '/v1/balances' },
  { method: 'GET', path: '/v1/events' },
  { method: 'GET', path: '/v1/reports/{name}' },
  { method: 'GET', path: '/v1/series/pnl' },
  { method: 'GET', path: '/v1/series/latency' },
  { method: 'GET', path: '/v1/discrepancies' },
  { method: 'GET', path: '/v1/openapi.json' },
]

/**
 * The routes of a daemon's OpenAPI document (`paths`), or {@link knownRoutes} when it has none.
 *
 * @example
 * routesOf({ paths: { '/v1/executions': { get: {} } } }) // [{ method: 'GET', path: '/v1/executions' }]
 */
export function routesOf(document: unknown): ProbeRoute[] {
  const paths = (document as { paths?: unknown } | undefined)?.paths
  if (typeof paths !== 'object' || paths === null) return [...knownRoutes]
  const routes = Object.entries(paths).flatMap(([path, operations]) =>
    Object.keys(operations as object)
      .filter((method) => ['get', 'post', 'put', 'patch', 'delete'].includes(method))
      .map((method) => ({ method: method.toUpperCase(), path })),
  )
  return routes.length > 0 ? routes : [...knownRoutes]
}

/** A route's path with sample values in its `{name}` segments (ids that do not exist). */
export function samplePath(path: string): string {
  return path.replace(/\{(\w+)\}/g, (_whole, name: string) =>
    name === 'name'
      ? 'summary'
      : name === 'id' && path.includes('strategies')
        ? 'probe-no-such-strategy'
        : '999999999',
  )
}

/**
 * Tokens that are almost the daemon's: the last character changed, one character more or less,
 * another case, a space inside, the same with a trailing newline. None equals it.
 *
 * @example
 * almostRightTokens('abc123').includes('abc123') // false
 */
export function almostRightTokens(token: string): string[] {
  const last = token.at(-1) ?? 'a'
  const variants = [
    `${token.slice(0, -1)}${last === 'a' ? 'b' : 'a'}`,
    `${token}0`,
    token.slice(0, -1),
    token.toUpperCase() === token ? token.toLowerCase() : token.toUpperCase(),
    `${token.slice(0, 8)} ${token.slice(8)}`,
    `${token}\u0000`,
  ]
  return [...new Set(variants)].filter((variant) => variant !== token)
}

/** One request of a route as the auth categories send it: a POST with a body its route refuses. */
function routeRequest(route: ProbeRoute, headers: Record<string, string>) {
  const post = route.method !== 'GET'
  return {
    method: route.method,
    path: samplePath(route.path),
    headers: post
      ? {
          ...headers,
          'content-type': 'application/json',
          'idempotency-key': `probe-${randomBytes(6).toString('hex')}`,
        }
      : headers,
    body: post ? '{' : undefined,
  }
}

function outcome(
  label: string,
  reply: ProbeReply | ProbeStatus,
  expected: readonly ProbeStatus[],
  problem?: string,
) {
  const status = typeof reply === 'object' ? reply.status : reply
  return { label, status, expected, problem } satisfies ProbeOutcome
}

/** A CORS header in a reply that lets a foreign page read it. */
function corsProblem(reply: ProbeReply): string | undefined {
  const allowed = reply.headers['access-control-allow-origin']
  return allowed === undefined ? undefined : `answers Access-Control-Allow-Origin: ${String(allowed)}`
}

/** Whether the daemon answers `GET /health` 200 now (with the token: the full answer). */
export async function daemonAlive(context: ProbeContext): Promise<boolean> {
  try {
    const reply = await send(context.base, context.budget, {
      method: 'GET',
      path: '/health',
      headers: { authorization: `Bearer ${context.token}` },
    })
    return reply.status === 200
  } catch {
    return false
  }
}

type Category = {
  name: string
  expectation: string
  run(
    context: ProbeContext,
    routes: readonly ProbeRoute[],
  ): Promise<Omit<CategoryResult, 'name' | 'expectation' | 'alive'>>
}

/** Requests of the auth categories: every route with `authorization`. */
async function everyRoute(
  context: ProbeContext,
  routes: readonly ProbeRoute[],
  authorization: string | undefined,
  label: string,
) {
  const headers: Record<string, string> = authorization === undefined ? {} : { authorization }
  const outcomes = await Promise.all(
    routes.map(async (route) => {
      const request = routeRequest(route, headers)
      return outcome(
        `${route.method} ${request.path} ${label}`,
        await send(context.base, context.budget, request),
        [401],
      )
    }),
  )
  return { outcomes, problems: [], notes: [] }
}

const noToken: Category = {
  name: 'no token',
  expectation: 'every /v1 route answers 401',
  run: (context, routes) => everyRoute(context, routes, undefined, 'without a token'),
}

const wrongToken: Category = {
  name: 'wrong token',
  expectation: 'every /v1 route answers 401, the dashboard login too',
  async run(context, routes) {
    const result = await everyRoute(
      context,
      routes,
      `Bearer ${randomBytes(32).toString('hex')}`,
      'with a random token',
    )
    const login = await send(context.base, context.budget, {
      method: 'POST',
      path: '/dashboard/login',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: randomBytes(32).toString('hex') }),
    })
    result.outcomes.push(outcome('POST /dashboard/login with a random token', login, [401]))
    return result
  },
}

const almostRightToken: Category = {
  name: 'almost-right token',
  expectation: 'every near miss of the token, and a malformed scheme, answers 401',
  async run(context) {
    const reads = ['/v1/kill-switch', '/v1/executions?limit=1', '/v1/strategies']
    const authorizations = [
      ...almostRightTokens(context.token).map((token) => `Bearer ${token}`),
      `Basic ${Buffer.from(`x:${context.token}`).toString('base64')}`,
      `Token ${context.token}`,
      `Bearer${context.token}`,
      context.token,
    ]
    const outcomes = await Promise.all(
      authorizations.flatMap((authorization, index) =>
        reads.map(async (path) =>
          outcome(
            `GET ${path} with near miss #${index + 1}`,
            // A header value Node refuses to send (a NUL) is sent in a cookie-less raw form below instead.
            authorization.includes('\u0000')
              ? await sendCutShortSafe(context, path, authorization)
              : await send(context.base, context.budget, { method: 'GET', path, headers: { authorization } }),
            [400, 401],
          ),
        ),
      ),
    )
    return { outcomes, problems: [], notes: [] }
  },
}

/** A GET with a header Node's client refuses to write, over a raw socket; its status. */
function sendCutShortSafe(context: ProbeContext, path: string, authorization: string): Promise<ProbeStatus> {
  const head = `GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: ${authorization}\r\nConnection: close\r\n\r\n`
  return sendCutShort(context.base, context.budget, head, '')
}

/** Paths that climb out of the dashboard's folder or the API's, in several encodings. */
export const traversalPaths: readonly string[] = [
  '/dashboard/../../../../etc/passwd',
  '/dashboard/..%2f..%2f..%2f..%2fetc%2fpasswd',
  '/dashboard/%2e%2e/%2e%2e/%2e%2e/package.json',
  '/dashboard/%2E%2E%2F%2E%2E%2Fpackage.json',
  '/dashboard/..%252f..%252fpackage.json',
  '/dashboard/vendor/..%2f..%2f..%2fpackage.json',
  '/dashboard/vendor/..%5c..%5c..%5cpackage.json',
  '/dashboard/%c0%ae%c0%ae/%c0%ae%c0%ae/package.json',
  '/dashboard/....//....//package.json',
  '/dashboard/index.html%00.js',
  '/dashboard/./././index.html/..',
  '//etc/passwd',
  '/v1/reports/..%2f..%2f..%2fpackage.json',
  '/v1/executions/..%2f..%2fhealth',
  '/v1/swaps/%2e%2e',
  '/v1/../health/../../etc/passwd',
]

/** Text that would mean a file of the machine or the repository was served. */
const leakMarks = ['root:x:0:0', '"devDependencies"', '"dependencies"', 'BEGIN PRIVATE KEY']

const pathTraversal: Category = {
  name: 'path traversal',
  expectation: 'every climbing path answers 400, 401 or 404, never a file',
  async run(context) {
    const outcomes = await Promise.all(
      traversalPaths.flatMap((path) =>
        [undefined, `Bearer ${context.token}`].map(async (authorization) => {
          const reply = await send(context.base, context.budget, {
            method: 'GET',
            path,
            headers: authorization === undefined ? {} : { authorization },
          })
          const leak = leakMarks.find((mark) => reply.body.includes(mark))
          return outcome(
            `GET ${path}${authorization ? ' with the token' : ''}`,
            reply,
            [400, 401, 404],
            leak ? `the body holds ${JSON.stringify(leak)}: a file was served` : undefined,
          )
        }),
      ),
    )
    return { outcomes, problems: [], notes: [] }
  },
}

/** Bodies a JSON route must refuse, each with the status that refuses it. */
export function hostileBodies(): {
  label: string
  body: string | Buffer
  contentType?: string
  encoding?: string
  expected: ProbeStatus[]
}[] {
  const deep = 20_000
  return [
    { label: 'not JSON', body: '{"chainId": 31337,', expected: [400] },
    { label: 'empty', body: '', expected: [400] },
    { label: 'null', body: 'null', expected: [400] },
    { label: 'a string', body: '"swap"', expected: [400] },
    { label: 'NaN and Infinity', body: '{"chainId": NaN, "amountIn": Infinity}', expected: [400] },
    {
      label: 'a number beyond float',
      body: '{"chainId": 1e999, "exchange": -0, "amountIn": "1e999"}',
      expected: [400],
    },
    { label: 'a byte-order mark', body: '\uFEFF{"chainId":31337}', expected: [400] },
    {
      label: 'invalid UTF-8',
      body: Buffer.from([0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d]),
      expected: [400],
    },
    { label: `arrays nested ${deep} deep`, body: `${'['.repeat(deep)}${']'.repeat(deep)}`, expected: [400] },
    {
      label: `objects nested ${deep / 4} deep`,
      body: `${'{"a":'.repeat(deep / 4)}1${'}'.repeat(deep / 4)}`,
      expected: [400],
    },
    { label: '__proto__ key', body: '{"__proto__":{"polluted":true},"chainId":31337}', expected: [400] },
    {
      label: 'constructor.prototype key',
      body: '{"constructor":{"prototype":{"polluted":true}}}',
      expected: [400],
    },
    { label: 'duplicate keys', body: '{"side":"buy","side":"sell","chainId":31337}', expected: [400] },
    { label: 'a string of 60 KiB', body: JSON.stringify({ ticker: 'A'.repeat(60 * 1024) }), expected: [400] },
    {
      label: 'a body of 1 MiB',
      body: JSON.stringify({ ticker: 'A'.repeat(1024 * 1024) }),
      expected: [413, 'error'],
    },
    { label: 'a text/plain body', body: '{"chainId":31337}', contentType: 'text/plain', expected: [415] },
    {
      label: 'a form body',
      body: 'chainId=31337&ticker=AAPL',
      contentType: 'application/x-www-form-urlencoded',
      expected: [415],
    },
    {
      label: 'a gzip-encoded body',
      body: Buffer.from([0x1f, 0x8b, 0x08, 0x00]),
      encoding: 'gzip',
      expected: [415],
    },
  ]
}

const hostileJson: Category = {
  name: 'hostile JSON bodies',
  expectation:
    'malformed, deep, huge and prototype-polluting bodies answer 400, 413 or 415; nothing is recorded',
  async run(context) {
    const authorization = `Bearer ${context.token}`
    const outcomes: ProbeOutcome[] = []
    for (const body of hostileBodies()) {
      for (const path of ['/v1/swaps', '/v1/kill-switch/halt']) {
        const reply = await send(context.base, context.budget, {
          method: 'POST',
          path,
          headers: {
            authorization,
            'content-type': body.contentType ?? 'application/json',
            'idempotency-key': `probe-${randomBytes(6).toString('hex')}`,
            ...(body.encoding ? { 'content-encoding': body.encoding } : {}),
          },
          body: body.body,
        })
        outcomes.push(outcome(`POST ${path}: ${body.label}`, reply, body.expected))
      }
    }
    // Nothing of it may have halted trading or polluted what the daemon answers.
    const killSwitch = await send(context.base, context.budget, {
      method: 'GET',
      path: '/v1/kill-switch',
      headers: { authorization },
    })
    const halted = /"halted"\s*:\s*true/.test(killSwitch.body)
    outcomes.push(
      outcome(
        'GET /v1/kill-switch afterwards',
        killSwitch,
        [200],
        /polluted/.test(killSwitch.body) ? 'a polluted property shows in a reply' : undefined,
      ),
    )
    return {
      outcomes,
      problems: [],
      notes: halted ? ['the kill switch is halted (it may have been before the probe)'] : [],
    }
  },
}

const cutShort: Category = {
  name: 'cut-short bodies',
  expectation: 'a body or head that never comes whole gets 400 or no reply, never a 5xx',
  async run(context) {
    const authorization = `Bearer ${context.token}`
    const posts = [
      ['/v1/swaps', 200, '{"chainId":'],
      ['/v1/kill-switch/halt', 50, '{"reas'],
      ['/dashboard/login', 80, '{"token":"'],
      ['/v1/executions/1/cancel', 1_000_000, '{'],
    ] as const
    const outcomes: ProbeOutcome[] = []
    for (const [path, length, part] of posts)
      for (const withToken of [true, false]) {
        const head = `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${length}\r\n${withToken ? `Authorization: ${authorization}\r\n` : ''}Idempotency-Key: probe-cut-${randomBytes(4).toString('hex')}\r\n\r\n`
        outcomes.push(
          outcome(
            `POST ${path} cut after ${part.length} of ${length} bytes${withToken ? ' with the token' : ''}`,
            await sendCutShort(context.base, context.budget, head, part),
            // A Content-Length above the body limit may be refused before the body is awaited.
            [400, 401, 413, 'no reply'],
          ),
        )
      }
    for (const head of [
      'GET /v1/kill-switch HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthoriz',
      'POST /v1/swaps HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\nContent-Type: application/json\r\n\r\n5\r\n{"ch',
      'GET /v1/kill-switch HTTP/1.1\r\n',
    ])
      outcomes.push(
        outcome(
          `a request cut in its head: ${JSON.stringify(head.slice(0, 40))}…`,
          await sendCutShort(context.base, context.budget, head, ''),
          [400, 401, 'no reply'],
        ),
      )
    return { outcomes, problems: [], notes: [] }
  },
}

const cookieGames: Category = {
  name: 'cookie and CSRF',
  expectation:
    'a session changes nothing without its CSRF token; after logout its cookie gets 401; forged cookies 401',
  async run(context) {
    const outcomes: ProbeOutcome[] = []
    const login = await send(context.base, context.budget, {
      method: 'POST',
      path: '/dashboard/login',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ token: context.token }),
    })
    outcomes.push(outcome('POST /dashboard/login with the token', login, [200]))
    const setCookie = login.headers['set-cookie']?.[0] ?? ''
    const cookie = setCookie.split(';')[0] ?? ''
    if (login.status !== 200 || cookie === '')
      return { outcomes, problems: ['no session to play with: the login did not answer a cookie'], notes: [] }
    const withCookie = (headers: Record<string, string> = {}) => ({ cookie, ...headers })
    const postHalt = (headers: Record<string, string>) =>
      send(context.base, context.budget, {
        method: 'POST',
        path: '/v1/kill-switch/halt',
        headers: { 'content-type': 'application/json', ...headers },
        body: '{',
      })
    outcomes.push(
      outcome(
        'GET /v1/kill-switch with the session',
        await send(context.base, context.budget, {
          method: 'GET',
          path: '/v1/kill-switch',
          headers: withCookie(),
        }),
        [200],
      ),
      outcome('POST halt with the session, no CSRF token', await postHalt(withCookie()), [403]),
      outcome(
        'POST halt with the session, a wrong CSRF token',
        await postHalt(withCookie({ 'x-csrf-token': randomBytes(32).toString('base64url') })),
        [403],
      ),
      outcome(
        'POST halt with the session from a foreign page (text/plain, Origin)',
        await postHalt(withCookie({ 'content-type': 'text/plain', origin: 'http://evil.example' })),
        [403, 415],
      ),
      outcome(
        'GET /v1/kill-switch with a forged session id',
        await send(context.base, context.budget, {
          method: 'GET',
          path: '/v1/kill-switch',
          headers: { cookie: `stockroute_session=${randomBytes(32).toString('base64url')}` },
        }),
        [401],
      ),
      outcome(
        'GET /v1/kill-switch with the token as a session id',
        await send(context.base, context.budget, {
          method: 'GET',
          path: '/v1/kill-switch',
          headers: { cookie: `stockroute_session=${context.token}` },
        }),
        [401],
      ),
      outcome(
        'POST /dashboard/logout without a CSRF token',
        await send(context.base, context.budget, {
          method: 'POST',
          path: '/dashboard/logout',
          headers: withCookie(),
        }),
        [200, 204],
      ),
      outcome(
        'GET /v1/kill-switch with the logged-out cookie',
        await send(context.base, context.budget, {
          method: 'GET',
          path: '/v1/kill-switch',
          headers: withCookie(),
        }),
        [401],
      ),
    )
    return { outcomes, problems: [], notes: [] }
  },
}

const foreignOrigin: Category = {
  name: 'foreign Origin/Host',
  expectation:
    'no reply lets a foreign page read it (no CORS); a session from a foreign page changes nothing',
  async run(context) {
    const authorization = `Bearer ${context.token}`
    const evil = 'http://evil.example'
    const requests: {
      label: string
      method: string
      path: string
      headers: Record<string, string>
      body?: string
      expected: ProbeStatus[]
    }[] = [
      {
        label: 'GET /v1/kill-switch with the token, Origin evil',
        method: 'GET',
        path: '/v1/kill-switch',
        headers: { authorization, origin: evil },
        expected: [200],
      },
      {
        label: 'GET /v1/kill-switch with the token, Host evil',
        method: 'GET',
        path: '/v1/kill-switch',
        headers: { authorization, host: 'evil.example' },
        expected: [200, 400, 403, 421],
      },
      {
        label: 'GET /v1/kill-switch, Origin evil, no token',
        method: 'GET',
        path: '/v1/kill-switch',
        headers: { origin: evil },
        expected: [401],
      },
      {
        label: 'OPTIONS /v1/swaps preflight from evil',
        method: 'OPTIONS',
        path: '/v1/swaps',
        headers: {
          origin: evil,
          'access-control-request-method': 'POST',
          'access-control-request-headers': 'authorization',
        },
        expected: [400, 401, 404, 405],
      },
      {
        label: 'OPTIONS /dashboard/login preflight from evil',
        method: 'OPTIONS',
        path: '/dashboard/login',
        headers: { origin: evil, 'access-control-request-method': 'POST' },
        expected: [400, 404, 405],
      },
      {
        label: 'POST /dashboard/login as a form from evil',
        method: 'POST',
        path: '/dashboard/login',
        headers: { origin: evil, 'content-type': 'application/x-www-form-urlencoded' },
        body: `token=${randomBytes(8).toString('hex')}`,
        expected: [400, 401, 403, 415],
      },
      {
        label: 'GET /dashboard/ with Host evil',
        method: 'GET',
        path: '/dashboard/',
        headers: { host: 'evil.example:80' },
        expected: [200, 400, 403, 404, 421],
      },
      {
        label: 'GET /health, Origin evil',
        method: 'GET',
        path: '/health',
        headers: { origin: evil },
        expected: [200],
      },
    ]
    const outcomes = await Promise.all(
      requests.map(async (request) => {
        const reply = await send(context.base, context.budget, request)
        return outcome(request.label, reply, request.expected, corsProblem(reply))
      }),
    )
    return { outcomes, problems: [], notes: [] }
  },
}

/** How many event streams the probe opens at once. */
export const streamsAtOnce = 200

const eventStreams: Category = {
  name: `${streamsAtOnce} event streams`,
  expectation: 'a cap: some open (200), the rest refused with 429 TOO_MANY_REQUESTS',
  async run(context) {
    const streams = await Promise.all(
      Array.from({ length: streamsAtOnce }, () =>
        openStream(context.base, context.budget, { authorization: `Bearer ${context.token}` }),
      ),
    )
    for (const stream of streams) stream.close()
    const open = streams.filter((stream) => stream.status === 200).length
    const refused = streams.filter((stream) => stream.status === 429)
    const problems: string[] = []
    if (refused.length === 0) problems.push(`all ${open} streams opened: no cap on event streams`)
    else if (!refused.every((stream) => stream.body.includes('TOO_MANY_REQUESTS')))
      problems.push('a 429 without the code TOO_MANY_REQUESTS')
    // Let the daemon see the closed connections before the next category.
    await new Promise((resolve) => setTimeout(resolve, 500))
    return {
      outcomes: streams.map((stream, index) => outcome(`stream #${index + 1}`, stream.status, [200, 429])),
      problems,
      notes: [`${open} opened, ${refused.length} refused with 429`],
    }
  },
}

/** How many heavy reads the probe sends at once. */
export const readsAtOnce = 500

/** /health answering slower than this during the read burst means the reads hold the daemon. */
export const healthLimitMs = 1_000

const readBurst: Category = {
  name: `${readsAtOnce} concurrent reads`,
  expectation: `every read 200 or 429; /health answers within ${healthLimitMs} ms meanwhile`,
  async run(context) {
    const authorization = `Bearer ${context.token}`
    const first = await send(context.base, context.budget, {
      method: 'GET',
      path: '/v1/executions',
      headers: { authorization },
    })
    const rows = (first.body.match(/"executionId"/g) ?? []).length
    // /health is timed from a thread of its own: this one is busy sending the burst.
    const sampler = sampleHealth(context)
    const started = performance.now()
    const replies = await Promise.all(
      Array.from({ length: readsAtOnce }, () =>
        send(context.base, context.budget, {
          method: 'GET',
          path: '/v1/executions',
          headers: { authorization },
          timeoutMs: 60_000,
        }),
      ),
    )
    const burstMs = performance.now() - started
    const { health, healthFailures } = await sampler.stop()
    const sorted = [...health].sort((a, b) => a - b)
    const maxMs = sorted.at(-1) ?? Number.NaN
    const p50Ms = sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
    const problems: string[] = []
    if (!(maxMs <= healthLimitMs))
      problems.push(`/health took ${Math.round(maxMs)} ms during the burst (limit ${healthLimitMs} ms)`)
    if (healthFailures > 0) problems.push(`/health failed ${healthFailures} times during the burst`)
    return {
      outcomes: [
        outcome('GET /v1/executions (first page, before the burst)', first, [200]),
        ...replies.map((reply, index) => outcome(`read #${index + 1}`, reply, [200, 429])),
      ],
      problems,
      notes: [
        `pages of ${rows} executions (${Math.round(first.body.length / 1024)} KiB); burst answered in ${Math.round(burstMs)} ms; /health during it: ${health.length} samples, p50 ${Math.round(p50Ms)} ms, max ${Math.round(maxMs)} ms`,
      ],
      measurements: {
        healthSamples: health.length,
        healthP50Ms: Math.round(p50Ms),
        healthMaxMs: Math.round(maxMs),
        burstMs: Math.round(burstMs),
        executionsPerPage: rows,
      },
    }
  },
}

// Plain CommonJS for a worker thread (`eval`): GET /health every 20 ms until told to stop, at most 400.
const healthSamplerSource = `
const { parentPort, workerData } = require('node:worker_threads')
const { request } = require('node:http')
const samples = []
let failures = 0
let stopping = false
parentPort.on('message', () => { stopping = true })
const once = () => new Promise((resolve) => {
  const started = performance.now()
  const done = (ok) => { samples.push(performance.now() - started); if (!ok) failures += 1; resolve() }
  const outgoing = request({ host: workerData.host, port: workerData.port, path: '/health', agent: false,
    headers: { authorization: 'Bearer ' + workerData.token }, timeout: 30000 }, (incoming) => {
    incoming.resume()
    incoming.on('end', () => done(incoming.statusCode === 200))
    incoming.on('error', () => done(false))
  })
  outgoing.on('timeout', () => outgoing.destroy())
  outgoing.on('error', () => done(false))
  outgoing.end()
})
;(async () => {
  while (!stopping && samples.length < 400) {
    await once()
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
  parentPort.postMessage({ samples, failures })
})()
`

/** Times GET /health from a worker thread until `stop()`; each sample counts against the budget. */
function sampleHealth(context: ProbeContext) {
  const { hostname, port } = new URL(context.base)
  const worker = new Worker(healthSamplerSource, {
    eval: true,
    workerData: { host: hostname.replace(/^\[|\]$/g, ''), port: Number(port), token: context.token },
  })
  const result = new Promise<{ samples: number[]; failures: number }>((resolve, reject) => {
    worker.once('message', resolve)
    worker.once('error', reject)
  })
  return {
    async stop(): Promise<{ health: number[]; healthFailures: number }> {
      worker.postMessage('stop')
      const { samples, failures } = await result
      await worker.terminate()
      for (const _sample of samples) context.budget.take()
      return { health: samples, healthFailures: failures }
    },
  }
}

/** Query parameter names that are properties of every JS object, or array and nested forms. */
export const hostileQueryNames: readonly string[] = [
  '__proto__=1',
  '__proto__[polluted]=1',
  'constructor=x',
  'constructor[prototype][polluted]=1',
  'prototype=1',
  'hasOwnProperty=1',
  'toString=1',
  'valueOf=1',
  'state[]=failed',
  'limit=1&limit=2',
]

const queryNames: Category = {
  name: 'query names',
  expectation: 'object-property and array query names answer 400 naming the parameter',
  async run(context) {
    const authorization = `Bearer ${context.token}`
    const outcomes = await Promise.all(
      ['/v1/executions', '/v1/events', '/v1/reports/summary', '/v1/positions'].flatMap((path) =>
        hostileQueryNames.map(async (query) => {
          const reply = await send(context.base, context.budget, {
            method: 'GET',
            path: `${path}?${query}`,
            headers: { authorization },
          })
          return outcome(
            `GET ${path}?${query}`,
            reply,
            [400],
            /polluted/.test(reply.body) && reply.status === 200
              ? 'a polluted property shows in the reply'
              : undefined,
          )
        }),
      ),
    )
    return { outcomes, problems: [], notes: [] }
  },
}

/** Every category, in the order the probe runs them (the bursts last). */
export const categories: readonly Category[] = [
  noToken,
  wrongToken,
  almostRightToken,
  pathTraversal,
  hostileJson,
  cutShort,
  cookieGames,
  foreignOrigin,
  queryNames,
  eventStreams,
  readBurst,
]
