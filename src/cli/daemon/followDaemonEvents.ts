import { setTimeout as sleep } from 'node:timers/promises'
import { type LedgerEventView, ledgerEventViewSchema } from '../../daemon/controlApi/contract.js'
import type { DaemonClient } from './createDaemonClient.js'
import { DaemonClientError } from './daemonClientError.js'
import { createServerSentEventParser } from './parseServerSentEvents.js'

/** The first wait before reconnecting, ms; it doubles up to {@link maxReconnectDelayMs}. */
const firstReconnectDelayMs = 250
/** The longest wait between two reconnections, ms. */
export const maxReconnectDelayMs = 5_000

/**
 * Follows the daemon's event stream (`GET /v1/events`, Server-Sent Events) until `signal` aborts,
 * calling `onEvent` for each event in order. When the connection drops (the daemon restarts, the
 * network blinks) it reconnects with `Last-Event-ID` set to the last event seen, so nothing is
 * missed or repeated, after a bounded backoff (250 ms doubling to 5 s, back to 250 ms once
 * connected). `connect` is asked for a client on each attempt: a restarted daemon has a new URL and
 * token. A refusal (401, 4xx) ends the follow with its error; an abort ends it quietly.
 *
 * @example
 * await followDaemonEvents({ connect: () => requireDaemon(target, 'following events'), afterId: 0,
 *   kinds: ['fill'], signal, onEvent: (event) => console.log(event.id), onNote: console.error })
 */
export async function followDaemonEvents(parameters: {
  connect: () => DaemonClient
  /** Start after this event id (0: the whole stream). */
  afterId: number | undefined
  kinds?: readonly string[] | undefined
  signal: AbortSignal
  onEvent: (event: LedgerEventView) => void
  /** Connection notes (connected, lost, reconnecting), for stderr. */
  onNote: (note: string) => void
}): Promise<void> {
  const { signal } = parameters
  let lastId = parameters.afterId
  let delayMs = firstReconnectDelayMs
  while (!signal.aborted) {
    try {
      const client = parameters.connect()
      const response = await client.openStream('/v1/events', {
        query: {
          ...(lastId === undefined ? {} : { after: lastId }),
          ...(parameters.kinds && parameters.kinds.length > 0 ? { kinds: parameters.kinds.join(',') } : {}),
        },
        headers: lastId === undefined ? {} : { 'last-event-id': String(lastId) },
        signal,
      })
      parameters.onNote(`following events ${client.via}${lastId === undefined ? '' : ` after #${lastId}`}`)
      delayMs = firstReconnectDelayMs
      let badEvent: string | undefined
      const parser = createServerSentEventParser((message) => {
        let json: unknown
        try {
          json = JSON.parse(message.data)
        } catch {
          badEvent = `event ${message.id ?? '?'} is not JSON`
          return
        }
        const parsed = ledgerEventViewSchema.safeParse(json)
        if (!parsed.success) {
          badEvent = `event ${message.id ?? '?'}: ${parsed.error.issues[0]?.message ?? 'unexpected shape'}`
          return
        }
        lastId = parsed.data.id
        parameters.onEvent(parsed.data)
      })
      if (!response.body) throw new Error('the event stream has no body')
      const decoder = new TextDecoder()
      for await (const chunk of response.body) {
        parser.feed(decoder.decode(chunk as Uint8Array, { stream: true }))
        if (badEvent) parameters.onNote(`skipped a malformed ${badEvent}`)
        badEvent = undefined
      }
      if (signal.aborted) return
      parameters.onNote('the daemon closed the event stream')
    } catch (error) {
      if (signal.aborted) return
      if (
        error instanceof DaemonClientError &&
        (error.code === 'DAEMON_UNAUTHORIZED' ||
          error.code === 'DAEMON_REFUSED' ||
          error.code === 'DAEMON_BAD_REPLY')
      )
        throw error
      parameters.onNote(
        error instanceof DaemonClientError && error.code === 'DAEMON_NOT_RUNNING'
          ? 'no daemon runs now: waiting for it to start again'
          : `event stream lost: ${error instanceof Error ? error.message : String(error)}`,
      )
    }
    parameters.onNote(
      `reconnecting in ${delayMs} ms${lastId === undefined ? '' : ` (from event #${lastId})`}`,
    )
    try {
      await sleep(delayMs, undefined, { signal })
    } catch {
      return // aborted while waiting
    }
    delayMs = Math.min(delayMs * 2, maxReconnectDelayMs)
  }
}
