import type { Ledger } from '../../store/index.js'
import { type JobLogger, messageOf } from '../jobs/jobTypes.js'
import type { AssetSymbolOf } from './formatNotificationText.js'
import type { NotificationSink } from './resolveNotificationSinks.js'
import {
  createSinkRuntime,
  type DeliverySettings,
  deliverDueRows,
  enqueueNewEvents,
  type SinkRuntime,
} from './sinkDelivery.js'

export type StartNotifierParameters = {
  /** The daemon's ledger (the notifier writes only small outbox rows, never in the engine's path). */
  ledger: Ledger
  /** From `resolveNotificationSinks`. */
  sinks: readonly NotificationSink[]
  logger?: JobLogger | undefined
  /** Clock for retry times, Unix ms (default `Date.now`). */
  now?: (() => number) | undefined
  fetch?: typeof globalThis.fetch | undefined
  /** How often new events are read and due rows sent, ms (default 1000). */
  pollMs?: number | undefined
  /** Attempts of one notification before it is abandoned (default 10). */
  maxAttempts?: number | undefined
  /** Per request, ms (default 10000). */
  requestTimeoutMs?: number | undefined
  /** Backoff after a failed attempt: from `baseMs` (default 1000), doubling, capped at `maxMs` (default 300000), jittered. */
  retry?: { baseMs?: number | undefined; maxMs?: number | undefined } | undefined
  /** A sink's `Retry-After` is honoured up to this, ms (default 3600000). */
  maxRetryAfterMs?: number | undefined
  /** Names asset tokens in messages (e.g. from the chains' token lists). */
  assetSymbolOf?: AssetSymbolOf | undefined
  /** Aborting it stops the notifier, as {@link Notifier.stop} does. */
  signal?: AbortSignal | undefined
}

/** One sink as the notifier sees it: the outbox counts and the last results. */
export type SinkStatus = {
  name: string
  kind: NotificationSink['kind']
  pending: number
  delivered: number
  abandoned: number
  oldestPendingAtMs: number | null
  /** The last event id read into the outbox. */
  cursor: number | null
  lastDeliveredAtMs: number | null
  /** The last failed attempt's error (never the URL: it may hold a secret). */
  lastError: string | null
  lastErrorAtMs: number | null
  /** Failed attempts in a row (0 after a delivery): above 0, the sink is down or refusing. */
  consecutiveFailures: number
}

export type NotifierStatus = { running: boolean; sinks: SinkStatus[] }

export type Notifier = {
  /** Stops polling, cuts requests in flight (their rows stay pending) and waits for the sinks' work to end. */
  stop(): Promise<void>
  /** For /health and metrics. Reads the outbox counts (one small query). */
  status(): NotifierStatus
  /** Reads new events and sends due rows now rather than at the next poll. */
  wake(): void
}

/**
 * Delivers the ledger's events to the sinks, off the engine's path: every `pollMs` it copies new
 * events into each sink's outbox (one transaction per batch, see `ledger.notifications.enqueueNew`)
 * and sends the sink's due rows, one at a time per sink (p-queue of concurrency 1: a sink receives
 * its notifications in event order), each sink independently (a sink that is down only delays its
 * own rows). 2xx: delivered. Timeout, connection error, 408, 429 (its `Retry-After` honoured) and
 * 5xx: retried with exponential backoff and jitter, abandoned after `maxAttempts`; a row waiting for
 * its retry holds back the later rows of its sink. Any other status is a refusal (wrong URL, token,
 * chat): abandoned at once and logged at error — retrying would never succeed.
 *
 * At least once: a row is marked delivered after the sink's 2xx, so a crash between the two resends
 * it, with the same idempotency key (webhook receivers dedupe on it; chat services may show it twice).
 * Nothing is lost: a sink's cursor and its outbox rows are written in one transaction.
 *
 * @example
 * const notifier = startNotifier({ ledger, sinks: resolveNotificationSinks(config.notifications, process.env), logger })
 * // at shutdown, before ledger.close():
 * await notifier.stop()
 */
export function startNotifier(parameters: StartNotifierParameters): Notifier {
  const { ledger, logger } = parameters
  checkSinkNames(parameters.sinks)
  const stopping = new AbortController()
  const settings = deliverySettingsOf(parameters, stopping.signal)
  let stopped: Promise<void> | undefined
  let timer: NodeJS.Timeout | undefined
  const runtimes = parameters.sinks.map(createSinkRuntime)

  /** Reads each sink's new events and, unless it is busy, queues the sending of its due rows. */
  const tick = (): void => {
    clearTimeout(timer)
    timer = undefined
    if (stopping.signal.aborted) return
    for (const runtime of runtimes) {
      try {
        enqueueNewEvents(settings, runtime)
      } catch (error) {
        logger?.error(
          { sink: runtime.sink.name, error: messageOf(error) },
          'notifications: reading new events failed',
        )
      }
      if (runtime.queue.size === 0 && runtime.queue.pending === 0)
        runtime.queue
          .add(() => deliverDueRows(settings, runtime))
          .catch((error: unknown) =>
            logger?.error(
              { sink: runtime.sink.name, error: messageOf(error) },
              'notifications: delivery failed',
            ),
          )
    }
    timer = setTimeout(tick, settings.pollMs)
  }

  const stop = (): Promise<void> => {
    stopped ??= (async () => {
      stopping.abort()
      clearTimeout(timer)
      timer = undefined
      await Promise.all(runtimes.map((runtime) => runtime.queue.onIdle()))
    })()
    return stopped
  }

  if (parameters.signal?.aborted) void stop()
  else parameters.signal?.addEventListener('abort', () => void stop(), { once: true })
  // The first poll runs now: a new sink's cursor is set before this returns, so an event appended
  // right after start (recovery, the first fills) is not missed.
  tick()

  return {
    stop,
    wake: tick,
    status: () => notifierStatus(ledger, runtimes, !stopping.signal.aborted),
  }
}

function checkSinkNames(sinks: readonly NotificationSink[]) {
  const names = sinks.map((sink) => sink.name)
  if (new Set(names).size !== names.length)
    throw new TypeError(`startNotifier: sink names must be unique (got ${names.join(', ')})`)
}

/** The parameters with their defaults, as every sink's delivery reads them. */
function deliverySettingsOf(
  parameters: StartNotifierParameters,
  signal: AbortSignal,
): DeliverySettings & { pollMs: number } {
  return {
    ledger: parameters.ledger,
    logger: parameters.logger,
    now: parameters.now ?? Date.now,
    fetch: parameters.fetch ?? globalThis.fetch,
    pollMs: parameters.pollMs ?? 1_000,
    maxAttempts: parameters.maxAttempts ?? 10,
    timeoutMs: parameters.requestTimeoutMs ?? 10_000,
    backoff: { baseMs: parameters.retry?.baseMs ?? 1_000, maxMs: parameters.retry?.maxMs ?? 300_000 },
    maxRetryAfterMs: parameters.maxRetryAfterMs ?? 3_600_000,
    assetSymbolOf: parameters.assetSymbolOf,
    signal,
  }
}

/** Each sink's outbox counts (one small query) beside its last results. */
function notifierStatus(ledger: Ledger, runtimes: readonly SinkRuntime[], running: boolean): NotifierStatus {
  const counts = new Map(ledger.notifications.counts().map((row) => [row.sink, row]))
  return {
    running,
    sinks: runtimes.map((runtime) => {
      const count = counts.get(runtime.sink.name)
      return {
        name: runtime.sink.name,
        kind: runtime.sink.kind,
        pending: count?.pending ?? 0,
        delivered: count?.delivered ?? 0,
        abandoned: count?.abandoned ?? 0,
        oldestPendingAtMs: count?.oldestPendingAtMs ?? null,
        cursor: count?.cursor ?? null,
        lastDeliveredAtMs: runtime.lastDeliveredAtMs,
        lastError: runtime.lastError,
        lastErrorAtMs: runtime.lastErrorAtMs,
        consecutiveFailures: runtime.consecutiveFailures,
      }
    }),
  }
}
