import { appendFileSync, readFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { describe, expect, it } from 'vitest'
import { createServerSentEventParser } from '../../src/cli/daemon/parseServerSentEvents.js'
import { openLedger } from '../../src/store/index.js'
import { useDaemonProcesses } from '../helpers/daemonProcess.js'
import { chainWithRouter } from '../helpers/localChains.js'
import { exitOf } from '../helpers/processes.js'
import { useSandboxService } from '../helpers/sandboxService.js'
import { startReceiver } from './notifications/receiver.js'

// The daemon's two ways of telling what happened, across a kill and a restart:
// - the event stream (GET /v1/events): a client that disconnects and reconnects with Last-Event-ID,
//   once across a restart, receives every event exactly once and in order;
// - notifications: a webhook sink that is down while the daemon fills and is killed receives,
//   after the restart, each notification once (by idempotency key); trading never waited for it.

const service = useSandboxService()
const daemons = useDaemonProcesses(service)

type Received = { id: number; kind: string }

/** The daemon's URL and token, from the runtime file it writes beside its ledger (once it is `pid`'s). */
async function runtimeOf(ledgerPath: string, pid: number): Promise<{ url: string; token: string }> {
  for (let tries = 0; tries < 200; tries++) {
    try {
      const runtime = JSON.parse(readFileSync(`${ledgerPath}.runtime.json`, 'utf8'))
      if (runtime.pid === pid) {
        const token = runtime.token.source === 'file' ? readFileSync(runtime.token.path, 'utf8').trim() : ''
        return { url: runtime.url, token }
      }
    } catch {
      // Not written yet.
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  throw new Error(`no runtime file of pid ${pid} beside ${ledgerPath}`)
}

/**
 * Reads the event stream from `lastEventId` until `enough` holds for what was received (then
 * disconnects) or the stream ends (the daemon went away).
 */
async function readStream(
  target: { url: string; token: string },
  lastEventId: number,
  into: Received[],
  enough: (received: Received[]) => boolean,
): Promise<void> {
  const controller = new AbortController()
  const response = await fetch(`${target.url}/v1/events${lastEventId === 0 ? '?after=0' : ''}`, {
    headers: {
      authorization: `Bearer ${target.token}`,
      accept: 'text/event-stream',
      ...(lastEventId > 0 ? { 'last-event-id': String(lastEventId) } : {}),
    },
    signal: controller.signal,
  })
  expect(response.status).toBe(200)
  const parser = createServerSentEventParser((event) => {
    into.push({ id: Number(event.id), kind: event.event })
    if (enough(into)) controller.abort()
  })
  const decoder = new TextDecoder()
  try {
    for await (const chunk of response.body as unknown as AsyncIterable<Uint8Array>)
      parser.feed(decoder.decode(chunk, { stream: true }))
  } catch (error) {
    // Ours (enough read) or the daemon's end (killed): both end this connection.
    if (!controller.signal.aborted && !(error instanceof TypeError)) throw error
  }
}

/** A loopback port nothing listens on (yet). */
async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const port = (server.address() as { port: number }).port
  await new Promise((resolve) => server.close(resolve))
  return port
}

describe('daemon events and notifications', () => {
  it('streams every event once and in order across reconnects and a restart; a sink down during a kill gets each notification once after', {
    timeout: 120_000,
  }, async () => {
    const sinkPort = await freePort()
    const files = await daemons.writeConfig(
      'events',
      [
        {
          kind: 'schedule',
          id: 'aapl-every-second',
          chainId: chainWithRouter().chainId,
          ticker: 'AAPL',
          exchange: 0,
          side: 'buy',
          amountIn: '300',
          cron: '* * * * * *',
        },
      ],
      {
        notifications: {
          pollMs: 100,
          sinks: [
            {
              name: 'desk',
              kind: 'webhook',
              url: `http://127.0.0.1:${sinkPort}/hook`,
              secretEnv: 'DESK_WEBHOOK_SECRET',
              events: ['fill', 'failure', 'halt'],
            },
          ],
        },
      },
    )
    appendFileSync(`${files.dir}/.env`, 'DESK_WEBHOOK_SECRET=a-long-shared-secret\n')
    const received: Received[] = []
    const fills = (list: Received[]) => list.filter((event) => event.kind === 'fill').length

    // First run: read from the start until a fill, disconnect, reconnect where it stopped, and keep
    // reading until two more fills; the daemon is then killed mid-trading, the sink still down.
    const first = daemons.start(files.configPath)
    await first.waitFor(/^control API http/)
    const firstApi = await runtimeOf(files.ledgerPath, first.child.pid ?? 0)
    await readStream(firstApi, 0, received, (list) => fills(list) >= 1)
    await readStream(firstApi, received.at(-1)?.id ?? 0, received, (list) => fills(list) >= 3)
    first.child.kill('SIGKILL')
    expect((await exitOf(first.child)).signal).toBe('SIGKILL')
    const filledWhileSinkDown = fills(received)
    expect(filledWhileSinkDown).toBeGreaterThanOrEqual(3)

    // The sink comes up; the second run resumes the stream and delivers what the outbox holds.
    const sink = await startReceiver(sinkPort)
    const second = daemons.start(files.configPath)
    await second.waitFor(/^control API http/)
    const secondApi = await runtimeOf(files.ledgerPath, second.child.pid ?? 0)
    expect(secondApi.url).not.toBe(firstApi.url)
    await readStream(
      secondApi,
      received.at(-1)?.id ?? 0,
      received,
      (list) => fills(list) >= filledWhileSinkDown + 2,
    )

    // Every event the ledger has up to the last one read: received exactly once, in order.
    const ledger = openLedger({ path: files.ledgerPath, readonly: true })
    try {
      const lastRead = received.at(-1)?.id ?? 0
      const written = ledger.events.listAfter(0, { limit: lastRead }).filter((event) => event.id <= lastRead)
      expect(received).toEqual(written.map((event) => ({ id: event.id, kind: event.kind })))

      // Each fill of the ledger (up to the last read) is notified once, with its own key.
      const fillIds = written.filter((event) => event.kind === 'fill').map((event) => event.id)
      const deadline = Date.now() + 30_000
      const keysOf = () => sink.requests.map((request) => String(request.headers['idempotency-key']))
      const notifiedFill = (id: number) => keysOf().some((key) => key.startsWith(`stockroute:desk:${id}:`))
      while (!fillIds.every(notifiedFill) && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 100))
      expect(fillIds.filter((id) => !notifiedFill(id))).toEqual([])
      const keys = keysOf()
      expect(new Set(keys).size).toBe(keys.length)
    } finally {
      ledger.close()
    }
    second.child.kill('SIGTERM')
    expect(await exitOf(second.child)).toEqual({ code: 0, signal: null })
  })
})
