import { describe, expect, it } from 'vitest'
import {
  almostRightTokens,
  knownRoutes,
  routesOf,
  samplePath,
} from '../../scripts/probeControl/categories.js'
import { loopbackUrl, parseProbeOptions } from '../../scripts/probeControl/options.js'
import {
  type CategoryResult,
  categoryHeld,
  failuresOf,
  probeReport,
  renderProbeTable,
  statusCounts,
} from '../../scripts/probeControl/report.js'
import { createProbeBudget, statusOfRawAnswer } from '../../scripts/probeControl/send.js'

// probe:control's pure parts: its command line (loopback only), the near misses of a token, the
// routes it reads from the OpenAPI document, the verdict per category and the table it prints.

describe('probe:control options', () => {
  it('takes a loopback URL with a token, a config, or --start, with the defaults for the rest', () => {
    expect(parseProbeOptions(['--url', 'http://127.0.0.1:8787/', '--token', 't0k3n'])).toEqual({
      target: { kind: 'url', url: 'http://127.0.0.1:8787', token: 't0k3n' },
      json: false,
      timeLimitSeconds: 180,
      warmupSeconds: 0,
    })
    expect(
      parseProbeOptions(['--config', 'config/default.json', '--json', '--time-limit', '60']),
    ).toMatchObject({
      target: { kind: 'config', configPath: 'config/default.json' },
      json: true,
      timeLimitSeconds: 60,
    })
    expect(parseProbeOptions(['--start', '--warmup', '0'])).toMatchObject({
      target: { kind: 'start' },
      warmupSeconds: 0,
    })
    expect(parseProbeOptions(['--start']).warmupSeconds).toBe(30)
    expect(loopbackUrl('http://[::1]:8787')).toBe('http://[::1]:8787')
  })

  it('refuses any URL that is not plain http on 127.0.0.1 or [::1]', () => {
    for (const url of [
      'http://10.0.0.5:8787',
      'http://localhost:8787',
      'http://127.0.0.1.evil.example:8787',
      'https://127.0.0.1:8787',
      'http://127.0.0.2:8787',
    ])
      expect(() => parseProbeOptions(['--url', url, '--token', 't'])).toThrow(/127\.0\.0\.1|plain http/)
    expect(() => loopbackUrl('http://127.0.0.1:8787/v1')).toThrow(/base URL only/)
    expect(() => loopbackUrl('not a url')).toThrow(/is not a URL/)
  })

  it('names what is wrong, with the usage', () => {
    expect(() => parseProbeOptions([])).toThrow(/name one daemon[\s\S]*usage: npm run probe:control/)
    expect(() => parseProbeOptions(['--start', '--config', 'x.json'])).toThrow(/name one daemon/)
    expect(() => parseProbeOptions(['--url', 'http://127.0.0.1:1'])).toThrow(/--url and --token go together/)
    expect(() => parseProbeOptions(['--start', '--time-limit', '5000'])).toThrow(
      /--time-limit must be a whole number from 10 to 900/,
    )
    expect(() => parseProbeOptions(['--config', 'x.json', '--warmup', '5'])).toThrow(
      /--warmup applies to --start only/,
    )
    expect(() => parseProbeOptions(['--start', '--bursts'])).toThrow(/unknown option --bursts/)
    expect(() => parseProbeOptions(['--config'])).toThrow(/--config needs a value/)
  })
})

describe('probe:control requests', () => {
  it('near misses of a token are never the token itself', () => {
    const token = 'f'.repeat(64)
    const misses = almostRightTokens(token)
    expect(misses.length).toBeGreaterThanOrEqual(5)
    expect(misses).not.toContain(token)
    expect(new Set(misses).size).toBe(misses.length)
  })

  it("reads the routes from the daemon's OpenAPI document, with ids that do not exist", () => {
    expect(
      routesOf({ paths: { '/v1/executions/{id}': { get: {}, parameters: [] }, '/v1/swaps': { post: {} } } }),
    ).toEqual([
      { method: 'GET', path: '/v1/executions/{id}' },
      { method: 'POST', path: '/v1/swaps' },
    ])
    expect(routesOf(undefined)).toEqual(knownRoutes)
    expect(samplePath('/v1/executions/{id}/cancel')).toBe('/v1/executions/999999999/cancel')
    expect(samplePath('/v1/strategies/{id}/enable')).toBe('/v1/strategies/probe-no-such-strategy/enable')
    expect(samplePath('/v1/reports/{name}')).toBe('/v1/reports/summary')
  })

  it('reads the status of a raw answer; a budget refuses the request past its maximum', () => {
    expect(statusOfRawAnswer('HTTP/1.1 400 Bad Request\r\nConnection: close\r\n\r\n')).toBe(400)
    expect(statusOfRawAnswer('')).toBe('no reply')
    const budget = createProbeBudget({ maxRequests: 2, timeLimitMs: 60_000 })
    budget.take()
    budget.take()
    expect(() => budget.take()).toThrow(/budget of 2 requests is spent/)
    expect(budget.sent).toBe(2)
  })
})

describe('probe:control verdicts', () => {
  const category = (overrides: Partial<CategoryResult>): CategoryResult => ({
    name: 'no token',
    expectation: 'every /v1 route answers 401',
    outcomes: [
      { label: 'GET /v1/executions', status: 401, expected: [401] },
      { label: 'POST /v1/swaps', status: 401, expected: [401] },
    ],
    alive: true,
    problems: [],
    notes: [],
    ...overrides,
  })

  it('holds when every answer is expected, nothing is a 5xx and the daemon is alive', () => {
    expect(categoryHeld(category({}))).toBe(true)
    expect(categoryHeld(category({ alive: false }))).toBe(false)
    expect(categoryHeld(category({ problems: ['no cap on event streams'] }))).toBe(false)
    const leaked = category({
      outcomes: [
        {
          label: 'GET /dashboard/..%2fpackage.json',
          status: 404,
          expected: [404],
          problem: 'a file was served',
        },
      ],
    })
    expect(categoryHeld(leaked)).toBe(false)
    // A 5xx never holds, even where a test listed it.
    const failing = category({ outcomes: [{ label: 'GET /v1/positions', status: 500, expected: [500] }] })
    expect(categoryHeld(failing)).toBe(false)
    expect(failuresOf(failing)).toEqual(['GET /v1/positions: got 500, expected 500'])
  })

  it('counts statuses and prints one line per category, then why one did not hold', () => {
    const streams = category({
      name: '200 event streams',
      outcomes: [
        { label: '#1', status: 200, expected: [200, 429] },
        { label: '#2', status: 200, expected: [200, 429] },
      ],
      problems: ['all 2 streams opened: no cap on event streams'],
      notes: ['2 opened, 0 refused with 429'],
    })
    expect(statusCounts([...streams.outcomes, { label: 'x', status: 'no reply', expected: [] }])).toEqual({
      '200': 2,
      'no reply': 1,
    })
    const report = probeReport({
      url: 'http://127.0.0.1:8787',
      startedDaemon: false,
      durationMs: 1_234,
      categories: [category({}), streams],
    })
    expect(report).toMatchObject({ requests: 4, held: false })
    expect(renderProbeTable(report).split('\n')).toEqual([
      'CATEGORY           SENT  STATUSES  HELD',
      'no token              2  401×2     yes',
      '200 event streams     2  200×2     NO',
      '',
      '  200 event streams: 2 opened, 0 refused with 429',
      '  200 event streams did not hold: all 2 streams opened: no cap on event streams',
      '',
      '4 requests to http://127.0.0.1:8787 in 1.2 s: 1 of 2 categories did not hold',
    ])
  })
})
