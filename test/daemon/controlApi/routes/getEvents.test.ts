import { randomUUID } from 'node:crypto'
import { beforeAll, describe, expect, it } from 'vitest'
import { errorBodySchema, ledgerEventViewSchema } from '../../../../src/daemon/controlApi/contract.js'
import { startControlServer } from '../../../../src/daemon/controlApi/index.js'
import type { LedgerEvent } from '../../../../src/store/events.js'
import { controlPlaneOf, useControlServer } from '../../../helpers/controlApi.js'
import { chainWithRouter } from '../../../helpers/localChains.js'

// GET /v1/events over real HTTP: the ledger's event stream as Server-Sent Events, read with fetch
// as a client reads it. Whatever the client does (disconnect, reconnect with Last-Event-ID, filter
// by kind), what it receives is checked against the ledger itself: every event once, in order.

const token = `token-${randomUUID()}`
// The daemon's own plane over the test engine (no strategies: the stream does not need them).
const { testEngine, server, call } = useControlServer({
  engine: { funding: { asset: '20000' } },
  token,
  server: (engine) => ({ controlPlane: controlPlaneOf(engine) }),
})

type SseMessage = { id: string | undefined; event: string | undefined; data: string }

/** An open event stream, parsed as EventSource does (comments and data-less blocks skipped). */
async function openEvents(query = '', headers: Record<string, string> = {}, base = server().url) {
  const controller = new AbortController()
  const response = await fetch(`${base}/v1/events${query}`, {
    headers: { authorization: `Bearer ${token}`, ...headers },
    signal: controller.signal,
  })
  if (!response.body) throw new Error('no body')
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
  const messages: SseMessage[] = []
  let buffer = ''
  let retry: number | undefined
  let ended = false
  const parse = () => {
    for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
      const block = buffer.slice(0, end)
      buffer = buffer.slice(end + 2)
      const message: SseMessage = { id: undefined, event: undefined, data: '' }
      let hasData = false
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) continue
        const colon = line.indexOf(':')
        const field = colon === -1 ? line : line.slice(0, colon)
        const value = colon === -1 ? '' : line.slice(colon + 1).replace(/^ /, '')
        if (field === 'id') message.id = value
        else if (field === 'event') message.event = value
        else if (field === 'retry') retry = Number(value)
        else if (field === 'data') {
          message.data += hasData ? `\n${value}` : value
          hasData = true
        }
      }
      if (hasData) messages.push(message)
    }
  }
  /** Reads until `count` messages are in, or the stream ends. */
  const readUntil = async (done: (messages: readonly SseMessage[]) => boolean) => {
    while (!done(messages) && !ended) {
      const chunk = await reader.read()
      if (chunk.done) ended = true
      else buffer += chunk.value
      parse()
    }
    return messages
  }
  return {
    response,
    messages,
    retry: () => retry,
    readUntil,
    /** Reads until the stream has sent its first block (the server has its resume point). */
    started: () => readUntil(() => retry !== undefined),
    ended: () => ended,
    close: () => controller.abort(),
  }
}

const allEvents = (): LedgerEvent[] => testEngine().ledger.events.listAfter(0, { limit: 100_000 })
const lastId = (messages: readonly SseMessage[]) => Number(messages.at(-1)?.id ?? 0)

/** The message a ledger event must arrive as. */
const expectedMessage = (event: LedgerEvent): SseMessage => ({
  id: String(event.id),
  event: event.kind,
  data: JSON.stringify({
    id: event.id,
    kind: event.kind,
    chainId: event.chainId,
    executionId: event.executionId,
    at: new Date(event.atMs).toISOString(),
    data: event.data,
  }),
})

async function buyToTheEnd() {
  const { done } = await testEngine().engine.submit({
    intentId: `events-${randomUUID()}`,
    chainId: chainWithRouter().chainId,
    ticker: 'AAPL',
    exchange: 0,
    side: 'buy',
    amountIn: '1000',
  })
  return done
}

describe('GET /v1/events', () => {
  beforeAll(async () => {
    // Transitions and a fill, a halt and a resume: every kind the triggers write but reversals.
    await buyToTheEnd()
    testEngine().ledger.risk.halt('test: a halt event')
    testEngine().ledger.risk.resume('test: a resume event')
  })

  it('delivers every event exactly once and in order across a disconnect and a Last-Event-ID reconnect', async () => {
    const before = allEvents()
    expect(before.length).toBeGreaterThan(6)
    const first = await openEvents('?after=0')
    expect(first.response.status).toBe(200)
    expect(first.response.headers.get('content-type')).toContain('text/event-stream')
    const half = Math.floor(before.length / 2)
    await first.readUntil((messages) => messages.length >= half)
    first.close()
    const received = first.messages.slice(0, half)

    // Written while the client is away: a halt and a resume through the API, and a whole swap.
    for (const [path, reason] of [
      ['halt', 'away: halt'],
      ['resume', 'away: resume'],
    ] as const) {
      const reply = await call(`/v1/kill-switch/${path}`, { body: { reason } })
      expect(reply.status).toBe(200)
    }
    const outcome = await buyToTheEnd()
    expect(outcome.execution.state).toBe('confirmed')

    const target = testEngine().ledger.events.latestId()
    const second = await openEvents('?after=0', { 'last-event-id': String(lastId(received)) })
    await second.readUntil((messages) => lastId(messages) >= target)
    second.close()
    received.push(...second.messages)

    const expected = allEvents().filter((event) => event.id <= target)
    expect(received.map((message) => Number(message.id))).toEqual(expected.map((event) => event.id))
    expect(received).toEqual(expected.map(expectedMessage))
    for (const message of received) ledgerEventViewSchema.parse(JSON.parse(message.data))
    expect(first.retry()).toBeGreaterThan(0)
    const kinds = new Set(received.map((message) => message.event))
    for (const kind of ['execution', 'fill', 'halt', 'resume']) expect(kinds).toContain(kind)
  })

  it('starts at the newest event without a resume point, and sends new ones as they are written', async () => {
    const stream = await openEvents()
    await stream.started()
    const latestBefore = testEngine().ledger.events.latestId()
    testEngine().ledger.risk.halt('live: halt')
    testEngine().ledger.risk.resume('live: resume')
    await stream.readUntil((messages) => messages.length >= 2)
    stream.close()
    expect(stream.messages.slice(0, 2).map((message) => message.event)).toEqual(['halt', 'resume'])
    expect(Number(stream.messages[0]?.id)).toBeGreaterThan(latestBefore)
    expect(JSON.parse(stream.messages[0]?.data ?? '{}')).toMatchObject({
      kind: 'halt',
      chainId: null,
      executionId: null,
      data: { reason: 'live: halt' },
    })
  })

  it('filters by kind, and pages through a long backlog in order', async () => {
    for (let index = 0; index < 120; index++)
      testEngine().ledger.events.append('discrepancy', { chainId: 31337, data: { index } })
    const target = testEngine().ledger.events.latestId()
    const expected = allEvents().filter((event) => ['halt', 'discrepancy'].includes(event.kind))
    const stream = await openEvents('?after=0&kinds=halt,discrepancy')
    await stream.readUntil((messages) => lastId(messages) >= target)
    stream.close()
    expect(stream.messages).toEqual(expected.map(expectedMessage))
  })

  it('refuses a bad resume point, unknown kinds and unknown parameters', async () => {
    for (const [query, headers, field] of [
      ['', { 'last-event-id': 'abc' }, 'Last-Event-ID'],
      ['?after=-1', {}, 'after'],
      ['?kinds=fill,trade', {}, 'kinds'],
      ['?from=3', {}, 'from'],
    ] as const) {
      const reply = await fetch(`${server().url}/v1/events${query}`, {
        headers: { authorization: `Bearer ${token}`, ...headers },
      })
      expect(reply.status, query).toBe(400)
      const body = errorBodySchema.parse(await reply.json())
      expect(body.details?.map((detail) => detail.field)).toEqual([field])
    }
  })

  it('ends open streams when the server closes, and close() does not wait for them', async () => {
    const other = await startControlServer({
      engine: testEngine().engine,
      controlPlane: controlPlaneOf(testEngine()),
    })
    const streams = await Promise.all([openEvents('', {}, other.url), openEvents('?after=0', {}, other.url)])
    await Promise.all(streams.map((stream) => stream.started()))
    await other.close()
    for (const stream of streams) {
      await stream.readUntil(() => false)
      expect(stream.ended()).toBe(true)
    }
  })
})
