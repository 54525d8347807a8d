import { describe, expect, it } from 'vitest'
import { type Ledger, notificationIdempotencyKey, openLedger } from '../../src/store/index.js'
import { ledgerFolder } from './ledgerFiles.js'

const folder = ledgerFolder()

function open(path: string, now?: () => number): Ledger {
  return openLedger({ path, ...(now ? { now } : {}) })
}

/** Appends `count` discrepancy events (the simplest events code appends) and returns their ids. */
function discrepancies(ledger: Ledger, count: number, from = 0): number[] {
  return Array.from(
    { length: count },
    (_, index) => ledger.events.append('discrepancy', { chainId: 31337, data: { n: from + index } }).id,
  )
}

function rowsOf(ledger: Ledger, sink: string) {
  return ledger.database
    .prepare<[string], { event_id: number; idempotency_key: string; state: string; attempts: number }>(
      'SELECT event_id, idempotency_key, state, attempts FROM notification_outbox WHERE sink = ? ORDER BY event_id',
    )
    .all(sink)
}

describe('ledger.notifications', () => {
  it('starts a new sink at the newest event, then enqueues the wanted kinds after it, once each', () => {
    const ledger = open(folder.path())
    try {
      discrepancies(ledger, 3)
      const first = ledger.notifications.enqueueNew('ops', ['discrepancy', 'halt'])
      expect(first).toMatchObject({ enqueued: 0, initialized: true, caughtUp: true, cursor: 3 })

      const [d4] = discrepancies(ledger, 1, 3)
      ledger.risk.halt('operator: test')
      ledger.events.append('recovery', { data: { step: 'ignored: not subscribed' } })
      const second = ledger.notifications.enqueueNew('ops', ['discrepancy', 'halt'])
      expect(second).toMatchObject({ enqueued: 2, initialized: false, caughtUp: true })
      expect(second.cursor).toBe(ledger.events.latestId())
      expect(ledger.notifications.enqueueNew('ops', ['discrepancy', 'halt']).enqueued).toBe(0)

      const rows = ledger.notifications.due(Date.now() + 1)
      expect(rows.map((row) => row.event.kind)).toEqual(['discrepancy', 'halt'])
      expect(rows[0]?.eventId).toBe(d4)
      expect(rows[0]?.idempotencyKey).toBe(
        notificationIdempotencyKey('ops', rows[0]?.event ?? { id: 0, atMs: 0 }),
      )
      expect(rows[0]?.idempotencyKey).toMatch(/^stockroute:ops:\d+:\d+$/)
      expect(rows[1]?.event.data).toEqual({ reason: 'operator: test' })
    } finally {
      ledger.close()
    }
  })

  it('keeps the fine filter: only events that accept takes get a row, the cursor passes the others', () => {
    const ledger = open(folder.path())
    try {
      ledger.notifications.enqueueNew('chat', ['discrepancy'])
      discrepancies(ledger, 4)
      const result = ledger.notifications.enqueueNew('chat', ['discrepancy'], {
        accept: (event) => Number(event.data.n) % 2 === 0,
      })
      expect(result.enqueued).toBe(2)
      expect(rowsOf(ledger, 'chat').map((row) => row.event_id)).toEqual([1, 3])
    } finally {
      ledger.close()
    }
  })

  it('enqueues each event exactly once across closing and reopening the file, with the same keys', () => {
    const path = folder.path()
    let ledger = open(path)
    ledger.notifications.enqueueNew('ops', ['discrepancy'])
    discrepancies(ledger, 5)
    ledger.notifications.enqueueNew('ops', ['discrepancy'], { limit: 2 })
    const before = rowsOf(ledger, 'ops')
    expect(before).toHaveLength(2)
    ledger.close()

    ledger = open(path)
    try {
      let result = ledger.notifications.enqueueNew('ops', ['discrepancy'], { limit: 2 })
      expect(result.caughtUp).toBe(false)
      while (!result.caughtUp) result = ledger.notifications.enqueueNew('ops', ['discrepancy'], { limit: 2 })
      discrepancies(ledger, 1, 5)
      ledger.notifications.enqueueNew('ops', ['discrepancy'])
      const after = rowsOf(ledger, 'ops')
      expect(after.map((row) => row.event_id)).toEqual([1, 2, 3, 4, 5, 6])
      expect(after.slice(0, 2)).toEqual(before)
      expect(new Set(after.map((row) => row.idempotency_key)).size).toBe(6)
    } finally {
      ledger.close()
    }
  })

  it('writes rows and cursor in one transaction: a filter that throws leaves neither', () => {
    const ledger = open(folder.path())
    try {
      ledger.notifications.enqueueNew('ops', ['discrepancy'])
      discrepancies(ledger, 3)
      expect(() =>
        ledger.notifications.enqueueNew('ops', ['discrepancy'], {
          accept: (event) => {
            if (event.id === 3) throw new Error('filter broke')
            return true
          },
        }),
      ).toThrow('filter broke')
      expect(rowsOf(ledger, 'ops')).toEqual([])
      expect(ledger.notifications.counts()).toEqual([
        { sink: 'ops', pending: 0, delivered: 0, abandoned: 0, oldestPendingAtMs: null, cursor: 0 },
      ])
      expect(ledger.notifications.enqueueNew('ops', ['discrepancy']).enqueued).toBe(3)
    } finally {
      ledger.close()
    }
  })

  it('gives due rows in event order per sink; a row waiting for its retry holds back its sink only', () => {
    let clock = 1_000_000
    const ledger = open(folder.path(), () => clock)
    try {
      for (const sink of ['a', 'b']) ledger.notifications.enqueueNew(sink, ['discrepancy'])
      discrepancies(ledger, 3)
      for (const sink of ['a', 'b']) ledger.notifications.enqueueNew(sink, ['discrepancy'])
      const all = ledger.notifications.due(clock)
      expect(all.map((row) => `${row.sink}${row.eventId}`)).toEqual(['a1', 'b1', 'a2', 'b2', 'a3', 'b3'])

      const [a1] = ledger.notifications.due(clock, { sink: 'a', limit: 1 })
      expect(ledger.notifications.markFailed(a1?.id ?? 0, 'HTTP 503', clock + 5_000)).toBe(true)
      expect(ledger.notifications.due(clock, { sink: 'a' })).toEqual([])
      expect(ledger.notifications.due(clock, { sink: 'b' }).map((row) => row.eventId)).toEqual([1, 2, 3])

      clock += 5_000
      const again = ledger.notifications.due(clock, { sink: 'a' })
      expect(again.map((row) => [row.eventId, row.attempts, row.lastError])).toEqual([
        [1, 1, 'HTTP 503'],
        [2, 0, null],
        [3, 0, null],
      ])
      expect(ledger.notifications.markDelivered(again[0]?.id ?? 0)).toBe(true)
      expect(ledger.notifications.markDelivered(again[0]?.id ?? 0)).toBe(false)
      expect(ledger.notifications.markAbandoned(again[1]?.id ?? 0, 'HTTP 404')).toBe(true)
      expect(ledger.notifications.markFailed(again[1]?.id ?? 0, 'late', clock)).toBe(false)
      expect(ledger.notifications.due(clock, { sink: 'a' }).map((row) => row.eventId)).toEqual([3])

      expect(ledger.notifications.counts()).toEqual([
        { sink: 'a', pending: 1, delivered: 1, abandoned: 1, oldestPendingAtMs: 1_000_000, cursor: 3 },
        { sink: 'b', pending: 3, delivered: 0, abandoned: 0, oldestPendingAtMs: 1_000_000, cursor: 3 },
      ])
      expect(ledger.notifications.requeueAbandoned('a')).toBe(1)
      expect(
        ledger.notifications.due(clock, { sink: 'a' }).map((row) => [row.eventId, row.attempts]),
      ).toEqual([
        [2, 0],
        [3, 0],
      ])
    } finally {
      ledger.close()
    }
  })

  it('refuses an empty sink name and a bad limit with a message that says what to give', () => {
    const ledger = open(folder.path())
    try {
      expect(() => ledger.notifications.enqueueNew(' ', ['fill'])).toThrow(/non-empty string/)
      expect(() => ledger.notifications.due(0, { limit: 0 })).toThrow(/whole number ≥ 1/)
    } finally {
      ledger.close()
    }
  })
})
