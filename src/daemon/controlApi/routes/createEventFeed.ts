import type { EventsRepository } from '../../../store/events.js'
import { ControlApiError } from '../errors.js'
import type { ControlServerLogger } from '../types.js'

/** Why {@link EventFeed.waitForEventsAfter} returned. */
export type EventWait = 'events' | 'timeout' | 'aborted'

/** How many event streams a server keeps open at once (`api.maxEventStreams*` of the config). */
export type EventStreamLimits = {
  /** Open streams at most, whoever opened them. */
  maxStreams: number
  /** Open streams at most per credential: the bearer token, or one dashboard session. */
  maxStreamsPerCredential: number
}

/** What a client refused a stream is told to wait before it retries, s. */
const streamRetryAfterSeconds = 5

/** The one poller of a server's event streams. */
export type EventFeed = {
  /**
   * Admits one more stream for `credential` (the token or session it came with, see
   * `credentialOf`), or throws 429 `TOO_MANY_REQUESTS` naming the limit it would pass. Call it
   * before answering 200; returns the release, to call once the stream ended (idempotent).
   */
  admit(credential: string): () => void
  /** Streams admitted and not released, in all and per credential. */
  readonly admitted: { total: number; byCredential: ReadonlyMap<string, number> }
  /** Counts an open stream: the poller runs while at least one is open. Returns its release. */
  open(): () => void
  /**
   * Resolves `events` once the ledger has an event above `afterId` (at once when the poller has
   * already seen one), `timeout` after `timeoutMs`, `aborted` when `signal` aborts or the feed closes.
   */
  waitForEventsAfter(afterId: number, options: { signal: AbortSignal; timeoutMs: number }): Promise<EventWait>
  /** Stops the poller and releases every waiter (`aborted`). */
  close(): void
}

/**
 * The shared poller behind `GET /v1/events`: while a stream is open it reads the ledger's newest
 * event id every `pollMs` and wakes the streams waiting below it. It only says "there is more":
 * each stream then reads the events from the ledger by its own cursor, at its client's pace, so a
 * slow client holds one page in memory, never the backlog, and a fast one is not held back. The
 * ledger is the only source, so events written by another process (a CLI halt) or before a
 * restart are seen the same way. It also counts the streams it admits against `limits`: each is a
 * connection and a waiter held for as long as the client likes.
 *
 * @example
 * const feed = createEventFeed(ledger.events, { pollMs: 150, limits: { maxStreams: 64, maxStreamsPerCredential: 16 } })
 * const admitted = feed.admit(credentialOf(request.headers)) // or 429
 * const release = feed.open()
 * if ((await feed.waitForEventsAfter(cursor, { signal, timeoutMs: 15_000 })) === 'events') readMore()
 * release()
 */
export function createEventFeed(
  events: Pick<EventsRepository, 'latestId'>,
  options: {
    pollMs: number
    logger?: ControlServerLogger | undefined
    /** Default: no limit. */
    limits?: EventStreamLimits | undefined
  },
): EventFeed {
  const waiters = new Set<{ afterId: number; wake: (why: EventWait) => void }>()
  const admitted = new Map<string, number>()
  let admittedTotal = 0
  let seen = 0
  let openStreams = 0
  let timer: NodeJS.Timeout | undefined
  let failing = false
  let closed = false

  const readLatest = (): number | undefined => {
    try {
      const latest = events.latestId()
      failing = false
      return latest
    } catch (error) {
      // Logged once per failing spell: a ledger fault (or the ledger closing at shutdown) would
      // otherwise log every poll. The streams wait; the server's close ends them.
      if (!failing) options.logger?.warn({ err: error }, 'control API: reading the event stream failed')
      failing = true
      return undefined
    }
  }
  const poll = () => {
    const latest = readLatest()
    if (latest === undefined || latest <= seen) return
    seen = latest
    for (const waiter of [...waiters]) if (waiter.afterId < seen) waiter.wake('events')
  }

  return {
    admit(credential) {
      const limits = options.limits
      const mine = admitted.get(credential) ?? 0
      if (limits && mine >= limits.maxStreamsPerCredential)
        throw tooManyStreams(
          `${mine} event streams are already open with this token or session, the most one may hold (api.maxEventStreamsPerToken): close one (a stream ends when its connection closes), or raise the limit in the config`,
        )
      if (limits && admittedTotal >= limits.maxStreams)
        throw tooManyStreams(
          `${admittedTotal} event streams are already open on this daemon, the most it serves at once (api.maxEventStreams): close one, or raise the limit in the config`,
        )
      admitted.set(credential, mine + 1)
      admittedTotal += 1
      let released = false
      return () => {
        if (released) return
        released = true
        admittedTotal -= 1
        const left = (admitted.get(credential) ?? 1) - 1
        if (left > 0) admitted.set(credential, left)
        else admitted.delete(credential)
      }
    },
    get admitted() {
      return { total: admittedTotal, byCredential: new Map(admitted) }
    },
    open() {
      if (closed) return () => {}
      openStreams += 1
      if (!timer) {
        seen = Math.max(seen, readLatest() ?? 0)
        timer = setInterval(poll, options.pollMs)
        timer.unref()
      }
      let released = false
      return () => {
        if (released) return
        released = true
        openStreams -= 1
        if (openStreams === 0 && timer) {
          clearInterval(timer)
          timer = undefined
        }
      }
    },
    waitForEventsAfter(afterId, { signal, timeoutMs }) {
      if (closed || signal.aborted) return Promise.resolve('aborted')
      if (seen > afterId) return Promise.resolve('events')
      return new Promise<EventWait>((resolve) => {
        const waiter = {
          afterId,
          wake: (why: EventWait) => {
            waiters.delete(waiter)
            clearTimeout(timeout)
            signal.removeEventListener('abort', onAbort)
            resolve(why)
          },
        }
        const onAbort = () => waiter.wake('aborted')
        const timeout = setTimeout(() => waiter.wake('timeout'), timeoutMs)
        signal.addEventListener('abort', onAbort, { once: true })
        waiters.add(waiter)
      })
    },
    close() {
      closed = true
      if (timer) clearInterval(timer)
      timer = undefined
      for (const waiter of [...waiters]) waiter.wake('aborted')
    },
  }
}

function tooManyStreams(why: string): ControlApiError {
  return new ControlApiError({
    status: 429,
    code: 'TOO_MANY_REQUESTS',
    message: `No event stream opened: ${why}. Retry after ${streamRetryAfterSeconds} s.`,
    headers: { 'retry-after': String(streamRetryAfterSeconds) },
  })
}
