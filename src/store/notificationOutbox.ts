import type { RepositoryContext } from './context.js'
import { createEventsRepository, type LedgerEvent, type LedgerEventKind } from './events.js'

// The notification outbox: which events each sink (a webhook, a chat) still has to receive. Rows are
// written from the events stream in one transaction with the sink's cursor, so an event reaches a
// sink's outbox exactly once, whatever instant the process dies at; the idempotency key is fixed
// then, so every retry of a row, even after a restart, carries the same key.

/** Where a notification is: waiting (first try or a retry), done, or given up after errors. */
export type NotificationState = 'pending' | 'delivered' | 'abandoned'

/** One row of the outbox, with the event it carries. */
export type NotificationRecord = {
  id: number
  sink: string
  eventId: number
  /** `stockroute:<sink>:<eventId>:<event atMs>`: the same on every attempt (see {@link notificationIdempotencyKey}). */
  idempotencyKey: string
  state: NotificationState
  /** Attempts made so far (delivered, failed or abandoned ones). */
  attempts: number
  nextAttemptAtMs: number
  lastError: string | null
  createdAtMs: number
  finishedAtMs: number | null
  event: LedgerEvent
}

/** A sink's outbox counts, for metrics and health. */
export type NotificationCounts = {
  sink: string
  pending: number
  delivered: number
  abandoned: number
  /** When the oldest pending row was written, or null: how far behind the sink is. */
  oldestPendingAtMs: number | null
  /** The last event id read into the outbox (0 before the first event). */
  cursor: number | null
}

/** What one {@link NotificationOutboxRepository.enqueueNew} call did. */
export type EnqueueResult = {
  /** Rows written for this sink. */
  enqueued: number
  /** The sink's cursor after the call: every event up to it has been considered. */
  cursor: number
  /** False when events remain after the cursor (the limit was reached): call again. */
  caughtUp: boolean
  /** True on the sink's first call: its cursor was set to the newest event, nothing enqueued. */
  initialized: boolean
}

/** The notification outbox repository (`ledger.notifications`). */
export type NotificationOutboxRepository = {
  /**
   * In one transaction: reads up to `limit` (default 500) events after the sink's cursor, writes an
   * outbox row for each one of `kinds` that `accept` (default: all) takes, and moves the cursor to
   * the last event read. Each (sink, event) gets one row ever (a second call cannot duplicate it).
   * A sink seen for the first time starts at the newest event: it receives what happens from now
   * on, not the ledger's history (its cursor is stored, so a restart resumes where it stopped).
   *
   * @example
   * let result
   * do result = ledger.notifications.enqueueNew('ops', ['fill', 'halt'])
   * while (!result.caughtUp)
   */
  enqueueNew(
    sink: string,
    kinds: readonly LedgerEventKind[],
    options?: { limit?: number | undefined; accept?: ((event: LedgerEvent) => boolean) | undefined },
  ): EnqueueResult
  /**
   * Pending rows whose time has come, oldest event first, at most `limit` (default 100), of one sink
   * or all. In order per sink: a row waiting for its retry holds back the later rows of its sink
   * (never those of another sink), so a sink receives its notifications in event order.
   *
   * @example
   * for (const row of ledger.notifications.due(Date.now(), { sink: 'ops' })) await send(row)
   */
  due(
    nowMs: number,
    options?: { sink?: string | undefined; limit?: number | undefined },
  ): NotificationRecord[]
  /**
   * A pending row was delivered (the sink answered 2xx). False when the row was not pending.
   *
   * @example
   * if (response.ok) ledger.notifications.markDelivered(row.id)
   */
  markDelivered(id: number): boolean
  /**
   * An attempt failed and will be retried at `nextAttemptAtMs`. False when the row was not pending.
   *
   * @example
   * ledger.notifications.markFailed(row.id, 'HTTP 503', Date.now() + 2_000)
   */
  markFailed(id: number, error: string, nextAttemptAtMs: number): boolean
  /**
   * Gives a pending row up (the sink refused it, or it failed too many times); it stays for a
   * human to see (and {@link NotificationOutboxRepository.requeueAbandoned}). False when not pending.
   *
   * @example
   * ledger.notifications.markAbandoned(row.id, 'HTTP 404 after 1 attempt')
   */
  markAbandoned(id: number, error: string): boolean
  /**
   * Puts a sink's abandoned rows back to pending with no attempts (after fixing its config).
   * Returns how many.
   *
   * @example
   * ledger.notifications.requeueAbandoned('ops') // 3
   */
  requeueAbandoned(sink: string): number
  /**
   * Counts per sink (every sink with a cursor or a row), by name.
   *
   * @example
   * ledger.notifications.counts().find((row) => row.sink === 'ops')?.pending // 0
   */
  counts(): NotificationCounts[]
}

/**
 * The idempotency key of a sink's notification of an event. Deterministic (never random): a row
 * written again after a crash would carry the same key. The event's time is part of it so that a
 * ledger created anew (ids start again at 1) does not reuse the keys of the old one at a receiver
 * that remembers them.
 *
 * @example
 * notificationIdempotencyKey('ops', { id: 42, atMs: 1750000000000 }) // 'stockroute:ops:42:1750000000000'
 */
export function notificationIdempotencyKey(sink: string, event: { id: number; atMs: number }): string {
  return `stockroute:${sink}:${event.id}:${event.atMs}`
}

type OutboxRow = {
  id: number
  sink: string
  event_id: number
  idempotency_key: string
  state: NotificationState
  attempts: number
  next_attempt_at_ms: number
  last_error: string | null
  created_at_ms: number
  finished_at_ms: number | null
  event_kind: LedgerEventKind
  event_chain_id: number | null
  event_execution_id: number | null
  event_data: string
  event_at_ms: number
}

const toRecord = (row: OutboxRow): NotificationRecord => ({
  id: row.id,
  sink: row.sink,
  eventId: row.event_id,
  idempotencyKey: row.idempotency_key,
  state: row.state,
  attempts: row.attempts,
  nextAttemptAtMs: row.next_attempt_at_ms,
  lastError: row.last_error,
  createdAtMs: row.created_at_ms,
  finishedAtMs: row.finished_at_ms,
  event: {
    id: row.event_id,
    kind: row.event_kind,
    chainId: row.event_chain_id,
    executionId: row.event_execution_id,
    data: JSON.parse(row.event_data) as Record<string, unknown>,
    atMs: row.event_at_ms,
  },
})

const checkSink = (sink: string): string => {
  if (typeof sink !== 'string' || sink.trim() === '')
    throw new TypeError('notifications: a sink name must be a non-empty string, e.g. "ops-webhook"')
  return sink
}

const checkLimit = (limit: number, fallback: number): number => {
  if (!Number.isSafeInteger(limit) || limit < 1)
    throw new TypeError(
      `notifications: limit must be a whole number ≥ 1 (got ${String(limit)}, default ${fallback})`,
    )
  return limit
}

/** Builds the notification outbox repository over an open database (see `openLedger`). */
export function createNotificationOutboxRepository(context: RepositoryContext): NotificationOutboxRepository {
  const { db, now } = context
  const events = createEventsRepository(context)
  const selectCursor = db.prepare<[string], { event_id: number }>(
    'SELECT event_id FROM notification_cursors WHERE sink = ?',
  )
  const upsertCursor = db.prepare<[string, number]>(
    `INSERT INTO notification_cursors (sink, event_id) VALUES (?, ?)
     ON CONFLICT (sink) DO UPDATE SET event_id = max(event_id, excluded.event_id)`,
  )
  // OR IGNORE: UNIQUE (sink, event_id) keeps one row per event even if a cursor were ever moved back.
  const insertRow = db.prepare<[string, number, string, number, number]>(
    `INSERT OR IGNORE INTO notification_outbox (sink, event_id, idempotency_key, state, attempts,
       next_attempt_at_ms, created_at_ms) VALUES (?, ?, ?, 'pending', 0, ?, ?)`,
  )
  const selectColumns = `SELECT o.*, e.kind AS event_kind, e.chain_id AS event_chain_id,
      e.execution_id AS event_execution_id, e.data AS event_data, e.at_ms AS event_at_ms
    FROM notification_outbox o JOIN events e ON e.id = o.event_id`
  const selectDue = db.prepare<{ now: number; sink: string | null; limit: number }, OutboxRow>(
    `${selectColumns}
     WHERE o.state = 'pending' AND o.next_attempt_at_ms <= @now AND (@sink IS NULL OR o.sink = @sink)
       AND NOT EXISTS (SELECT 1 FROM notification_outbox w WHERE w.sink = o.sink AND w.state = 'pending'
         AND w.event_id < o.event_id AND w.next_attempt_at_ms > @now)
     ORDER BY o.event_id, o.sink LIMIT @limit`,
  )
  const delivered = db.prepare<[number, number]>(
    `UPDATE notification_outbox SET state = 'delivered', attempts = attempts + 1, finished_at_ms = ?
     WHERE id = ? AND state = 'pending'`,
  )
  const failed = db.prepare<[string, number, number]>(
    `UPDATE notification_outbox SET attempts = attempts + 1, last_error = ?, next_attempt_at_ms = ?
     WHERE id = ? AND state = 'pending'`,
  )
  const abandoned = db.prepare<[string, number, number]>(
    `UPDATE notification_outbox SET state = 'abandoned', attempts = attempts + 1, last_error = ?,
       finished_at_ms = ? WHERE id = ? AND state = 'pending'`,
  )
  const requeue = db.prepare<[number, string]>(
    `UPDATE notification_outbox SET state = 'pending', attempts = 0, next_attempt_at_ms = ?, finished_at_ms = NULL
     WHERE sink = ? AND state = 'abandoned'`,
  )
  const selectCounts = db.prepare<
    [],
    Omit<NotificationCounts, 'oldestPendingAtMs' | 'cursor'> & {
      oldest_pending_at_ms: number | null
      cursor: number | null
    }
  >(
    `WITH sinks AS (SELECT sink FROM notification_cursors UNION SELECT DISTINCT sink FROM notification_outbox)
     SELECT s.sink,
       (SELECT count(*) FROM notification_outbox o WHERE o.sink = s.sink AND o.state = 'pending') AS pending,
       (SELECT count(*) FROM notification_outbox o WHERE o.sink = s.sink AND o.state = 'delivered') AS delivered,
       (SELECT count(*) FROM notification_outbox o WHERE o.sink = s.sink AND o.state = 'abandoned') AS abandoned,
       (SELECT min(created_at_ms) FROM notification_outbox o WHERE o.sink = s.sink AND o.state = 'pending')
         AS oldest_pending_at_ms,
       (SELECT event_id FROM notification_cursors c WHERE c.sink = s.sink) AS cursor
     FROM sinks s ORDER BY s.sink`,
  )

  const enqueue = db.transaction(
    (
      sink: string,
      kinds: readonly LedgerEventKind[],
      limit: number,
      accept: ((event: LedgerEvent) => boolean) | undefined,
    ): EnqueueResult => {
      const cursor = selectCursor.get(sink)?.event_id
      if (cursor === undefined) {
        const latest = events.latestId()
        upsertCursor.run(sink, latest)
        return { enqueued: 0, cursor: latest, caughtUp: true, initialized: true }
      }
      const read = events.listAfter(cursor, { limit })
      const wanted = new Set<LedgerEventKind>(kinds)
      const at = now()
      let enqueued = 0
      for (const event of read) {
        if (!wanted.has(event.kind) || (accept && !accept(event))) continue
        enqueued += insertRow.run(sink, event.id, notificationIdempotencyKey(sink, event), at, at).changes
      }
      const last = read.at(-1)?.id ?? cursor
      if (last !== cursor) upsertCursor.run(sink, last)
      return { enqueued, cursor: last, caughtUp: read.length < limit, initialized: false }
    },
  )

  return {
    enqueueNew(sink, kinds, options = {}) {
      const name = checkSink(sink)
      const limit = checkLimit(options.limit ?? 500, 500)
      // Polled every second or so: with nothing new, no write transaction (no lock, no fsync).
      const cursor = selectCursor.get(name)?.event_id
      if (cursor !== undefined && events.latestId() <= cursor)
        return { enqueued: 0, cursor, caughtUp: true, initialized: false }
      return enqueue.immediate(name, kinds, limit, options.accept)
    },
    due(nowMs, options = {}) {
      return selectDue
        .all({
          now: nowMs,
          sink: options.sink === undefined ? null : checkSink(options.sink),
          limit: checkLimit(options.limit ?? 100, 100),
        })
        .map(toRecord)
    },
    markDelivered: (id) => delivered.run(now(), id).changes === 1,
    markFailed: (id, error, nextAttemptAtMs) => failed.run(error, nextAttemptAtMs, id).changes === 1,
    markAbandoned: (id, error) => abandoned.run(error, now(), id).changes === 1,
    requeueAbandoned: (sink) => requeue.run(now(), checkSink(sink)).changes,
    counts: () =>
      selectCounts.all().map((row) => ({
        sink: row.sink,
        pending: row.pending,
        delivered: row.delivered,
        abandoned: row.abandoned,
        oldestPendingAtMs: row.oldest_pending_at_ms,
        cursor: row.cursor,
      })),
  }
}
