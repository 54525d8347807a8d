import type { EventsRepository, LedgerEvent } from '../../../store/events.js'
import type { LedgerEventView } from '../contract.js'
import { eventsQuerySchema, lastEventIdSchema } from '../contract.js'
import { credentialOf } from '../http/credentialOf.js'
import { invalidInput } from '../http/invalidInput.js'
import { readQuery } from '../http/readQuery.js'
import { zodProblems } from '../http/zodProblems.js'
import type { ControlRequest, ControlStreamReply, ControlStreamSink } from '../types.js'
import type { EventFeed } from './createEventFeed.js'

/** How the event streams pace themselves. */
export type EventStreamSettings = {
  /** A comment line after this long without a message, so proxies and clients keep the stream, ms. */
  heartbeatMs: number
  /** The `retry:` hint: how long a client waits before reconnecting, ms. */
  retryMs: number
  /** Events read from the ledger at a time, per stream: what a slow client holds in memory. */
  pageSize: number
}

/**
 * `GET /v1/events`: the ledger's event stream as Server-Sent Events, each message
 * `id: <event id>`, `event: <kind>`, `data: {id, kind, chainId, executionId, at, data}`. It starts
 * after the `Last-Event-ID` header, else after `?after=`, else at the newest event (only new ones),
 * optionally of `?kinds=` only. Every event after that point comes exactly once and in id order:
 * the stream reads the ledger by its own cursor (the ids are SQLite's, never reused), so a client
 * that reconnects with the last id it got misses nothing written while it was away, also across a
 * daemon restart. A slow client is read for at its pace (one page in memory at a time). The
 * feed's limits cap the streams open at once, overall and per token or session: one more is
 * refused with 429 `TOO_MANY_REQUESTS` before anything is streamed.
 *
 * @example
 * const route = { method: 'GET', path: '/v1/events', handle: getEvents(ledger.events, feed, settings) } as const
 * // curl -N -H 'Last-Event-ID: 41' 'http://127.0.0.1:8787/v1/events?kinds=fill,halt'
 * // id: 42
 * // event: fill
 * // data: {"id":42,"kind":"fill","chainId":31337,"executionId":12,"at":"2025-…","data":{…}}
 */
export function getEvents(
  events: Pick<EventsRepository, 'listAfter' | 'latestId'>,
  feed: EventFeed,
  settings: EventStreamSettings,
) {
  return (request: ControlRequest): ControlStreamReply => {
    const query = readQuery(request, eventsQuerySchema, 'Invalid events query')
    const header = request.headers['last-event-id']
    let lastEventId: number | undefined
    if (header !== undefined) {
      const parsed = lastEventIdSchema.safeParse(header)
      if (!parsed.success)
        throw invalidInput(
          'Invalid events request',
          zodProblems(parsed.error, 'Last-Event-ID').map(({ problem }) => ({
            field: 'Last-Event-ID',
            problem,
          })),
        )
      lastEventId = parsed.data
    }
    // Read now, not when the stream starts: "from now" means from this request.
    const start = lastEventId ?? query.after ?? events.latestId()
    const kinds = query.kinds
    // Counted from now (a 429 otherwise), released when the stream ends, whatever ends it.
    const admitted = feed.admit(credentialOf(request.headers))
    return {
      status: 200,
      headers: {
        'content-type': 'text/event-stream; charset=utf-8',
        // A reverse proxy (nginx) would otherwise buffer the stream.
        'x-accel-buffering': 'no',
      },
      stream: (sink) => streamEvents({ events, feed, settings, sink, start, kinds }).finally(admitted),
    }
  }
}

async function streamEvents(parameters: {
  events: Pick<EventsRepository, 'listAfter' | 'latestId'>
  feed: EventFeed
  settings: EventStreamSettings
  sink: ControlStreamSink
  start: number
  kinds: LedgerEvent['kind'][] | undefined
}): Promise<void> {
  const { events, feed, settings, sink, kinds } = parameters
  const { signal } = sink
  const release = feed.open()
  try {
    await sink.write(`retry: ${settings.retryMs}\n: events after ${parameters.start}\n\n`)
    // The id of the last event looked at: sent, or skipped by the kinds filter.
    let cursor = parameters.start
    while (!signal.aborted) {
      // SQLite has one writer at a time: once an id is visible, no smaller one can still appear,
      // so reading from the cursor never skips an event.
      const latest = events.latestId()
      if (latest > cursor) {
        const page = events.listAfter(cursor, { limit: settings.pageSize, kinds })
        const last = page.at(-1)
        if (last) {
          // One write per page: few syscalls, and never more than a page held for a slow client.
          await sink.write(page.map(formatEvent).join(''))
          cursor = last.id
        }
        // A short page means every event up to `latest` was looked at (with kinds: none other matches).
        if (page.length < settings.pageSize) cursor = Math.max(cursor, latest)
        continue
      }
      const woke = await feed.waitForEventsAfter(cursor, { signal, timeoutMs: settings.heartbeatMs })
      if (woke === 'aborted') return
      if (woke === 'timeout') await sink.write(': heartbeat\n\n')
    }
  } finally {
    release()
  }
}

/** One SSE message; JSON has no raw newline, so `data` is one line. */
function formatEvent(event: LedgerEvent): string {
  const view: LedgerEventView = {
    id: event.id,
    kind: event.kind,
    chainId: event.chainId,
    executionId: event.executionId,
    at: new Date(event.atMs).toISOString(),
    data: event.data,
  }
  return `id: ${event.id}\nevent: ${event.kind}\ndata: ${JSON.stringify(view)}\n\n`
}
