import type { EventsRepository } from '../../../store/events.js'
import type { ControlServerLogger } from '../types.js'

/** Why {@link EventFeed.waitForEventsAfter} returned. */
export type EventWait = 'events' | 'timeout' | 'aborted'

/** The one poller of a server's event streams. */
export type EventFeed = {
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
 * restart are seen the same way.
 *
 * @example
 * const feed = createEventFeed(ledger.events, { pollMs: 150 })
 * const release = feed.open()
 * if ((await feed.waitForEventsAfter(cursor, { signal, timeoutMs: 15_000 })) === 'events') readMore()
 * release()
 */
export function createEventFeed(
  events: Pick<EventsRepository, 'latestId'>,
  options: { pollMs: number; logger?: ControlServerLogger | undefined },
): EventFeed {
  const waiters = new Set<{ afterId: number; wake: (why: EventWait) => void }>()
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
