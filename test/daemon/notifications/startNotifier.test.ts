import { afterEach, describe, expect, it } from 'vitest'
import type {
  NotificationSink,
  Notifier,
  StartNotifierParameters,
} from '../../../src/daemon/notifications/index.js'
import { startNotifier } from '../../../src/daemon/notifications/index.js'
import { type Ledger, openLedger } from '../../../src/store/index.js'
import { ledgerFolder } from '../../store/ledgerFiles.js'
import { freePort, keysOf, startReceiver, waitFor } from './receiver.js'

const folder = ledgerFolder()
const running: Notifier[] = []
const ledgers: Ledger[] = []

afterEach(async () => {
  await Promise.all(running.splice(0).map((notifier) => notifier.stop()))
  for (const ledger of ledgers.splice(0)) ledger.close()
})

function newLedger(path = folder.path()): Ledger {
  const ledger = openLedger({ path })
  ledgers.push(ledger)
  return ledger
}

const webhook = (name: string, url: string): NotificationSink => ({
  name,
  kind: 'webhook',
  url,
  secret: 'test-secret',
  events: ['halt', 'discrepancy'],
})

/** A notifier with fast polls and retries (tests wait on conditions, never on durations). */
function start(ledger: Ledger, sinks: NotificationSink[], overrides: Partial<StartNotifierParameters> = {}) {
  const notifier = startNotifier({
    ledger,
    sinks,
    pollMs: 10,
    retry: { baseMs: 10, maxMs: 50 },
    ...overrides,
  })
  running.push(notifier)
  return notifier
}

const halts = (ledger: Ledger, count: number) => {
  for (let index = 0; index < count; index++) {
    ledger.risk.halt(`halt ${index}`)
    ledger.risk.resume(`resume ${index}`)
  }
}

const rows = (ledger: Ledger, sink: string) =>
  ledger.database
    .prepare<
      [string],
      {
        idempotency_key: string
        state: string
        attempts: number
        last_error: string | null
        next_attempt_at_ms: number
      }
    >(
      'SELECT idempotency_key, state, attempts, last_error, next_attempt_at_ms FROM notification_outbox WHERE sink = ? ORDER BY event_id',
    )
    .all(sink)

const allDelivered = (ledger: Ledger, sink: string, count: number) => () => {
  const found = rows(ledger, sink)
  return found.length === count && found.every((row) => row.state === 'delivered')
}

describe('startNotifier', () => {
  it('retries a sink that answers 500 with the same key, until its 200', async () => {
    const receiver = await startReceiver()
    receiver.respond((_, index) => (index < 2 ? { status: 500, body: 'down for a moment' } : { status: 200 }))
    const ledger = newLedger()
    start(ledger, [webhook('ops', receiver.url)])
    ledger.risk.halt('operator')
    await waitFor(allDelivered(ledger, 'ops', 1), 'the halt to be delivered')
    expect(receiver.requests).toHaveLength(3)
    expect(new Set(keysOf(receiver.requests)).size).toBe(1)
    expect(new Set(receiver.requests.map((request) => request.body)).size).toBe(1)
    expect(rows(ledger, 'ops')[0]).toMatchObject({ attempts: 3, last_error: 'HTTP 500: down for a moment' })
  })

  it("honours a 429's Retry-After rather than its own backoff", async () => {
    const receiver = await startReceiver()
    receiver.respond((_, index) =>
      index === 0 ? { status: 429, headers: { 'retry-after': '1' }, body: 'slow down' } : { status: 200 },
    )
    const ledger = newLedger()
    // A backoff of a minute: only the sink's Retry-After of 1 s can bring the retry within the test.
    start(ledger, [webhook('ops', receiver.url)], { retry: { baseMs: 60_000, maxMs: 60_000 } })
    const before = Date.now()
    ledger.risk.halt('operator')
    await waitFor(() => rows(ledger, 'ops')[0]?.attempts === 1, 'the 429 to be recorded')
    const after = Date.now()
    const [row] = rows(ledger, 'ops')
    expect(row?.last_error).toBe('HTTP 429: slow down')
    expect(row?.next_attempt_at_ms).toBeGreaterThanOrEqual(before + 1_000)
    expect(row?.next_attempt_at_ms).toBeLessThanOrEqual(after + 1_000)
    await waitFor(allDelivered(ledger, 'ops', 1), 'the retry after Retry-After')
    expect(keysOf(receiver.requests)).toEqual([keysOf(receiver.requests)[0], keysOf(receiver.requests)[0]])
  })

  it('abandons at once what the sink refuses (404), and the next notification still goes', async () => {
    const receiver = await startReceiver()
    receiver.respond((_, index) => (index === 0 ? { status: 404, body: 'no such hook' } : { status: 204 }))
    const ledger = newLedger()
    const notifier = start(ledger, [webhook('ops', receiver.url)])
    ledger.risk.halt('first')
    ledger.risk.resume('second')
    await waitFor(() => rows(ledger, 'ops').at(-1)?.state === 'delivered', 'the second notification')
    expect(rows(ledger, 'ops').map((row) => [row.state, row.attempts])).toEqual([
      ['abandoned', 1],
      ['delivered', 1],
    ])
    expect(rows(ledger, 'ops')[0]?.last_error).toBe('HTTP 404: no such hook (refused: not retried)')
    expect(notifier.status().sinks[0]).toMatchObject({ name: 'ops', abandoned: 1, delivered: 1, pending: 0 })
  })

  it('abandons a notification after maxAttempts failures', async () => {
    const receiver = await startReceiver()
    receiver.respond(() => ({ status: 503 }))
    const ledger = newLedger()
    start(ledger, [webhook('ops', receiver.url)], { maxAttempts: 3 })
    ledger.risk.halt('operator')
    await waitFor(() => rows(ledger, 'ops')[0]?.state === 'abandoned', 'the notification to be abandoned')
    expect(rows(ledger, 'ops')[0]).toMatchObject({
      attempts: 3,
      last_error: 'HTTP 503 (gave up after 3 attempts)',
    })
    expect(receiver.requests).toHaveLength(3)
  })

  it('delivers everything once, in order, after a sink that was down (connection refused) comes up', async () => {
    const port = await freePort()
    const ledger = newLedger()
    const notifier = start(ledger, [webhook('ops', `http://127.0.0.1:${port}/hook`)])
    halts(ledger, 2)
    await waitFor(
      () => (rows(ledger, 'ops')[0]?.attempts ?? 0) >= 2,
      'failed attempts while the sink is down',
    )
    expect(rows(ledger, 'ops')[0]?.last_error).toBe('connection failed: ECONNREFUSED')
    expect(notifier.status().sinks[0]?.consecutiveFailures).toBeGreaterThanOrEqual(2)
    halts(ledger, 2)

    const receiver = await startReceiver(port)
    halts(ledger, 1)
    await waitFor(allDelivered(ledger, 'ops', 10), 'all 10 notifications')
    const expected = rows(ledger, 'ops').map((row) => row.idempotency_key)
    expect(keysOf(receiver.requests)).toEqual(expected)
    expect(receiver.requests.map((request) => JSON.parse(request.body).event.id)).toEqual(
      [...receiver.requests.map((request) => JSON.parse(request.body).event.id)].sort((a, b) => a - b),
    )
    expect(notifier.status().sinks[0]?.consecutiveFailures).toBe(0)
  })

  it('loses and duplicates nothing across a restart (stop, reopen the ledger, start)', async () => {
    const receiver = await startReceiver()
    const path = folder.path()
    let ledger = newLedger(path)
    const first = start(ledger, [webhook('ops', receiver.url)])
    halts(ledger, 2)
    await waitFor(allDelivered(ledger, 'ops', 4), 'the first 4 notifications')
    await first.stop()
    halts(ledger, 2) // while no notifier runs
    ledger.close()
    ledgers.splice(0)

    ledger = newLedger(path)
    start(ledger, [webhook('ops', receiver.url)])
    halts(ledger, 1)
    await waitFor(allDelivered(ledger, 'ops', 10), 'all 10 notifications')
    const keys = keysOf(receiver.requests)
    expect(keys).toHaveLength(10)
    expect(keys).toEqual(rows(ledger, 'ops').map((row) => row.idempotency_key))
  })

  it('keeps a sink that hangs from delaying another sink', async () => {
    const hanging = await startReceiver()
    hanging.respond(() => 'hang')
    const healthy = await startReceiver()
    const ledger = newLedger()
    const notifier = start(ledger, [webhook('stuck', hanging.url), webhook('fine', healthy.url)], {
      requestTimeoutMs: 30_000,
    })
    halts(ledger, 3)
    await waitFor(allDelivered(ledger, 'fine', 6), 'the healthy sink to get all 6')
    expect(hanging.requests).toHaveLength(1)
    expect(rows(ledger, 'stuck').every((row) => row.state === 'pending' && row.attempts === 0)).toBe(true)
    // Stopping cuts the hanging request; its row stays pending for the next start, nothing is marked.
    await notifier.stop()
    expect(rows(ledger, 'stuck').every((row) => row.state === 'pending' && row.attempts === 0)).toBe(true)
    expect(notifier.status().running).toBe(false)
  })

  it('sends only what a sink subscribed to: failures are failed, expired and rejected executions', async () => {
    const receiver = await startReceiver()
    const ledger = newLedger()
    start(ledger, [{ ...webhook('ops', receiver.url), events: ['failure'] }])
    const create = (intentId: string) =>
      ledger.executions.createExecution({
        intentId,
        chainId: 31337,
        ticker: 'AAPL',
        exchange: 0,
        side: 'buy',
        amountIn: '1000',
        amountType: 'stablecoin',
      }).id
    const rejected = create('a')
    ledger.executions.transition(rejected, 'intent', 'rejected', 'kill switch')
    const quoting = create('b')
    ledger.executions.transition(quoting, 'intent', 'quoting', 'asking')
    ledger.executions.transition(quoting, 'quoting', 'expired', 'no quote in time')
    ledger.risk.halt('not subscribed')
    await waitFor(allDelivered(ledger, 'ops', 2), 'the 2 failures')
    const events = receiver.requests.map((request) => JSON.parse(request.body))
    expect(events.map((body) => [body.type, body.event.data.to])).toEqual([
      ['failure', 'rejected'],
      ['failure', 'expired'],
    ])
    expect(events[0].text).toBe(
      'Execution 1 rejected: buy AAPL for 1000 (stablecoin) on chain 31337: kill switch',
    )
  })
})
