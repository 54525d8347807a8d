import { createHmac, timingSafeEqual } from 'node:crypto'
import { afterEach, describe, expect, it } from 'vitest'
import {
  type NotificationSink,
  type Notifier,
  signWebhookBody,
  startNotifier,
} from '../../../src/daemon/notifications/index.js'
import { type Ledger, openLedger } from '../../../src/store/index.js'
import { fillOf, ledgerFolder, tokens } from '../../store/ledgerFiles.js'
import { type ReceivedRequest, startReceiver, waitFor } from './receiver.js'

const folder = ledgerFolder()
const cleanup: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const step of cleanup.splice(0).reverse()) await step()
})

/** Runs one sink over a fresh ledger, records one fill, and returns the request the sink got. */
async function deliverOneFill(sinkOf: (url: string) => NotificationSink): Promise<ReceivedRequest> {
  const receiver = await startReceiver()
  const ledger: Ledger = openLedger({ path: folder.path() })
  cleanup.push(() => ledger.close())
  const notifier: Notifier = startNotifier({
    ledger,
    sinks: [sinkOf(receiver.url)],
    pollMs: 10,
    assetSymbolOf: (chainId, token) =>
      chainId === 31337 && token.toLowerCase() === tokens.usdc.toLowerCase() ? 'USDC' : undefined,
  })
  cleanup.push(() => notifier.stop())
  ledger.fills.recordFill(fillOf({ txLabel: 'format' }))
  await waitFor(() => receiver.requests.length === 1, 'the fill notification')
  const [request] = receiver.requests
  if (!request) throw new Error('no request')
  return request
}

const fillText =
  /^Filled: buy 5 AAPL on chain 31337 for 1000\.00 USDC \(fee 1\.00\), tx 0x[0-9a-f]{4}…[0-9a-f]{4}$/

describe('notification formats', () => {
  it('webhook: JSON with the idempotency key, signed with HMAC-SHA256 of the raw body', async () => {
    const request = await deliverOneFill((url) => ({
      name: 'ops',
      kind: 'webhook',
      url: `${url}/hooks/stockroute`,
      secret: 'whsec-test',
      events: ['fill'],
    }))
    expect(request.method).toBe('POST')
    expect(request.path).toBe('/hooks/stockroute')
    expect(request.headers['content-type']).toBe('application/json')
    // What a receiver does: HMAC of the bytes received, compared in constant time.
    const expected = Buffer.from(
      `sha256=${createHmac('sha256', 'whsec-test').update(request.body).digest('hex')}`,
    )
    const given = Buffer.from(String(request.headers['x-stockroute-signature']))
    expect(given.length === expected.length && timingSafeEqual(given, expected)).toBe(true)
    expect(signWebhookBody('another secret', request.body)).not.toBe(String(given))
    expect(Number(request.headers['x-stockroute-timestamp'])).toBeGreaterThan(1_700_000_000_000)

    const body = JSON.parse(request.body)
    expect(body.id).toBe(request.headers['idempotency-key'])
    expect(body.id).toMatch(/^stockroute:ops:1:\d+$/)
    expect(body).toMatchObject({ type: 'fill', sink: 'ops' })
    expect(body.text).toMatch(fillText)
    expect(body.event).toMatchObject({
      id: 1,
      kind: 'fill',
      chainId: 31337,
      executionId: null,
      data: {
        ticker: 'AAPL',
        side: 'buy',
        amountIn: '1000000000',
        amountOut: '5',
        assetDecimals: 6,
        tokenKind: 'stock',
      },
    })
    expect(body.event.at).toBe(new Date(body.event.atMs).toISOString())
  })

  it('telegram: sendMessage of the bot, with the chat id and the text', async () => {
    const request = await deliverOneFill((url) => ({
      name: 'tg',
      kind: 'telegram',
      botToken: '123456:ABC-token',
      chatId: -1001234567890,
      apiBaseUrl: url,
      events: ['fill'],
    }))
    expect(request.path).toBe('/bot123456:ABC-token/sendMessage')
    const body = JSON.parse(request.body)
    expect(Object.keys(body)).toEqual(['chat_id', 'text'])
    expect(body.chat_id).toBe(-1001234567890)
    expect(body.text).toMatch(fillText)
  })

  it('discord: { content }', async () => {
    const request = await deliverOneFill((url) => ({
      name: 'dc',
      kind: 'discord',
      url: `${url}/api/webhooks/1/abc`,
      events: ['fill'],
    }))
    expect(request.path).toBe('/api/webhooks/1/abc')
    const body = JSON.parse(request.body)
    expect(Object.keys(body)).toEqual(['content'])
    expect(body.content).toMatch(fillText)
  })

  it('slack: { text }', async () => {
    const request = await deliverOneFill((url) => ({
      name: 'sl',
      kind: 'slack',
      url: `${url}/services/T/B/X`,
      events: ['fill'],
    }))
    const body = JSON.parse(request.body)
    expect(Object.keys(body)).toEqual(['text'])
    expect(body.text).toMatch(fillText)
    expect(request.headers['idempotency-key']).toMatch(/^stockroute:sl:1:\d+$/)
  })

  it('a Telegram 429 with parameters.retry_after is retried after the time it asks', async () => {
    const receiver = await startReceiver()
    receiver.respond((_, index) =>
      index === 0
        ? {
            status: 429,
            body: JSON.stringify({ ok: false, error_code: 429, parameters: { retry_after: 0 } }),
          }
        : { status: 200, body: '{"ok":true}' },
    )
    const ledger = openLedger({ path: folder.path() })
    cleanup.push(() => ledger.close())
    const notifier = startNotifier({
      ledger,
      sinks: [
        {
          name: 'tg',
          kind: 'telegram',
          botToken: 't',
          chatId: '@ops',
          apiBaseUrl: receiver.url,
          events: ['halt'],
        },
      ],
      pollMs: 10,
      retry: { baseMs: 60_000, maxMs: 60_000 },
    })
    cleanup.push(() => notifier.stop())
    ledger.risk.halt('operator')
    await waitFor(() => receiver.requests.length === 2, 'the retry the 429 asked for')
    expect(JSON.parse(receiver.requests[1]?.body ?? '{}')).toEqual({
      chat_id: '@ops',
      text: 'Trading halted: operator',
    })
  })
})
