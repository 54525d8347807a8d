import { describe, expect, it } from 'vitest'
import { sinkSubscription, startNotifier } from '../../../src/daemon/notifications/index.js'
import { openLedger } from '../../../src/store/index.js'
import { builtFixture } from '../../helpers/builtFixture.js'
import { exitOf, firstLine, spawnNode } from '../../helpers/processes.js'
import { ledgerFolder } from '../../store/ledgerFiles.js'
import { keysOf, startReceiver, waitFor } from './receiver.js'

const folder = ledgerFolder()

describe('notifier killed with SIGKILL mid-delivery', () => {
  it('a fresh notifier delivers the rest: every key arrives, a duplicate only with the same key and body', async () => {
    const path = folder.path()
    const secret = 'crash-secret'
    const { kinds, accept } = sinkSubscription(['halt'])
    let ledger = openLedger({ path })
    ledger.notifications.enqueueNew('crash', kinds, { accept }) // the sink starts here
    for (let index = 0; index < 15; index++) {
      ledger.risk.halt(`halt ${index}`)
      ledger.risk.resume(`resume ${index}`)
    }
    ledger.close()

    const receiver = await startReceiver()
    // The 8th request is received and never answered: the process dies with it in flight.
    receiver.respond((_, index) => (index === 7 ? 'hang' : { status: 200 }))
    const child = spawnNode([
      builtFixture('test/daemon/notifications/fixtures/notifierWorker.ts'),
      path,
      `${receiver.url}/hook`,
      secret,
    ])
    expect(await firstLine(child)).toBe('ready')
    await waitFor(() => receiver.requests.length >= 8, 'the child to send 8 notifications', 10_000)
    child.kill('SIGKILL')
    expect((await exitOf(child)).signal).toBe('SIGKILL')
    const inFlight = keysOf(receiver.requests)[7]

    receiver.respond(() => ({ status: 200 }))
    ledger = openLedger({ path })
    const notifier = startNotifier({
      ledger,
      sinks: [{ name: 'crash', kind: 'webhook', url: `${receiver.url}/hook`, secret, events: ['halt'] }],
      pollMs: 10,
    })
    try {
      const delivered = () =>
        ledger.database
          .prepare<[], { idempotency_key: string }>(
            "SELECT idempotency_key FROM notification_outbox WHERE sink = 'crash' AND state = 'delivered' ORDER BY event_id",
          )
          .all()
          .map((row) => row.idempotency_key)
      await waitFor(() => delivered().length === 30, 'all 30 notifications delivered')
      const expected = delivered()
      const received = keysOf(receiver.requests)
      expect(new Set(received)).toEqual(new Set(expected))
      // Exactly one duplicate: the request in flight when the process died, resent with its key.
      expect(received).toHaveLength(31)
      expect(received.filter((key) => key === inFlight)).toHaveLength(2)
      const bodies = new Map<string, Set<string>>()
      for (const request of receiver.requests) {
        const key = String(request.headers['idempotency-key'])
        bodies.set(key, (bodies.get(key) ?? new Set()).add(request.body))
        expect(JSON.parse(request.body).id).toBe(key)
      }
      expect([...bodies.values()].every((set) => set.size === 1)).toBe(true)
      // In event order: the resent one first, then the rest.
      expect(received.slice(8)).toEqual(expected.slice(7))
    } finally {
      await notifier.stop()
      ledger.close()
    }
  })
})
