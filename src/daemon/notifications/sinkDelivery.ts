import PQueue from 'p-queue'
import type { Ledger, NotificationRecord } from '../../store/index.js'
import type { JobLogger } from '../jobs/jobTypes.js'
import { buildSinkRequest } from './buildSinkRequest.js'
import { type DeliveryOutcome, deliverToSink } from './deliverToSink.js'
import type { AssetSymbolOf } from './formatNotificationText.js'
import type { NotificationSink } from './resolveNotificationSinks.js'
import { retryDelay } from './retryDelay.js'
import { sinkSubscription } from './sinkSubscription.js'

/** What delivering to any sink needs: the outbox, the clock, the transport and the retry policy. */
export type DeliverySettings = {
  ledger: Ledger
  logger: JobLogger | undefined
  now: () => number
  fetch: typeof globalThis.fetch
  timeoutMs: number
  maxAttempts: number
  backoff: { baseMs: number; maxMs: number }
  maxRetryAfterMs: number
  assetSymbolOf: AssetSymbolOf | undefined
  /** Aborted when the notifier stops: no new row is sent, requests in flight are cut. */
  signal: AbortSignal
}

/** One sink at work: its queue (one delivery at a time, in event order) and its last results. */
export type SinkRuntime = {
  sink: NotificationSink
  queue: PQueue
  subscription: ReturnType<typeof sinkSubscription>
  lastDeliveredAtMs: number | null
  lastError: string | null
  lastErrorAtMs: number | null
  consecutiveFailures: number
}

/**
 * A sink's runtime before its first delivery.
 *
 * @example
 * const runtimes = sinks.map(createSinkRuntime)
 */
export function createSinkRuntime(sink: NotificationSink): SinkRuntime {
  return {
    sink,
    queue: new PQueue({ concurrency: 1 }),
    subscription: sinkSubscription(sink.events),
    lastDeliveredAtMs: null,
    lastError: null,
    lastErrorAtMs: null,
    consecutiveFailures: 0,
  }
}

/**
 * Copies the sink's new events into its outbox, a bounded number of batches per poll.
 *
 * @example
 * enqueueNewEvents(settings, runtime)
 */
export function enqueueNewEvents(settings: DeliverySettings, runtime: SinkRuntime): void {
  const { kinds, accept } = runtime.subscription
  for (let batch = 0; batch < 20; batch++) {
    const result = settings.ledger.notifications.enqueueNew(runtime.sink.name, kinds, { accept })
    if (result.initialized)
      settings.logger?.info(
        { sink: runtime.sink.name, cursor: result.cursor },
        'notifications: new sink, it receives the events from now on',
      )
    if (result.caughtUp) return
  }
}

/**
 * Sends the sink's due rows in order, until none is due or one fails (the later ones wait for it).
 *
 * @example
 * await runtime.queue.add(() => deliverDueRows(settings, runtime))
 */
export async function deliverDueRows(settings: DeliverySettings, runtime: SinkRuntime): Promise<void> {
  const { ledger, now, signal } = settings
  for (;;) {
    if (signal.aborted) return
    const rows = ledger.notifications.due(now(), { sink: runtime.sink.name, limit: 50 })
    if (rows.length === 0) return
    for (const row of rows) {
      if (signal.aborted) return
      const request = buildSinkRequest(runtime.sink, row, {
        nowMs: now(),
        assetSymbolOf: settings.assetSymbolOf,
      })
      const result = await deliverToSink({
        request,
        fetch: settings.fetch,
        timeoutMs: settings.timeoutMs,
        signal,
        nowMs: now(),
      })
      recordOutcome(settings, runtime, row, result)
      if (result.outcome !== 'delivered') return
    }
  }
}

/** Marks the row delivered, abandoned or due again (with backoff), and keeps the sink's last results. */
function recordOutcome(
  settings: DeliverySettings,
  runtime: SinkRuntime,
  row: NotificationRecord,
  result: DeliveryOutcome,
): void {
  const { ledger, logger, now } = settings
  const fields = { sink: row.sink, eventId: row.eventId, idempotencyKey: row.idempotencyKey }
  const attempts = row.attempts + 1
  if (result.outcome === 'delivered') {
    ledger.notifications.markDelivered(row.id)
    runtime.lastDeliveredAtMs = now()
    runtime.consecutiveFailures = 0
    logger?.debug({ ...fields, status: result.status, attempts }, 'notification delivered')
    return
  }
  if (result.outcome === 'stopped') return
  runtime.lastError = result.error
  runtime.lastErrorAtMs = now()
  runtime.consecutiveFailures += 1
  if (result.outcome === 'abandon') {
    ledger.notifications.markAbandoned(row.id, `${result.error} (refused: not retried)`)
    logger?.error(
      { ...fields, error: result.error, attempts },
      "notification refused by the sink and abandoned: check the sink's url, token or chat id",
    )
    return
  }
  if (attempts >= settings.maxAttempts) {
    ledger.notifications.markAbandoned(row.id, `${result.error} (gave up after ${attempts} attempts)`)
    logger?.error(
      { ...fields, error: result.error, attempts },
      'notification abandoned after its last attempt',
    )
    return
  }
  const delayMs =
    result.retryAfterMs === undefined
      ? retryDelay(attempts, settings.backoff)
      : Math.min(result.retryAfterMs, settings.maxRetryAfterMs)
  ledger.notifications.markFailed(row.id, result.error, now() + delayMs)
  logger?.warn(
    { ...fields, error: result.error, attempts, retryInMs: delayMs },
    'notification failed, will retry',
  )
}
