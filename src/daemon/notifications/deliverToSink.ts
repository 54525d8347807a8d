import { parseRetryAfter } from './parseRetryAfter.js'

/** What one attempt to deliver came to. `error` never holds the URL (it may carry a secret). */
export type DeliveryOutcome =
  | { outcome: 'delivered'; status: number }
  /** Try again later: timeout, connection error, 408, 429, 5xx. `retryAfterMs`: the sink said when. */
  | { outcome: 'retry'; error: string; retryAfterMs?: number | undefined }
  /** Never again: the sink refused the request (a 3xx or a 4xx other than 408 and 429) — a config error. */
  | { outcome: 'abandon'; error: string }
  /** The notifier is stopping: the attempt was cut, the row stays as it was. */
  | { outcome: 'stopped' }

const snippet = (text: string): string => {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length > 200 ? `${flat.slice(0, 199)}…` : flat
}

/** The cause of a failed fetch without its URL: `ECONNREFUSED`, `timeout after 10000 ms`… */
function networkError(error: unknown, timeoutMs: number): string {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError'))
    return `no reply within ${timeoutMs} ms`
  const cause =
    error instanceof Error ? (error.cause as { code?: unknown; message?: unknown } | undefined) : undefined
  if (cause && typeof cause.code === 'string') return `connection failed: ${cause.code}`
  if (cause && typeof cause.message === 'string') return `connection failed: ${cause.message}`
  return `connection failed: ${error instanceof Error ? error.message : String(error)}`
}

/**
 * POSTs one request and classifies the reply: 2xx delivered; 408, 429 and 5xx, a timeout or a
 * connection error retried (with the sink's `Retry-After` when it gives one); any other status
 * abandoned (retrying a request the sink refuses, e.g. a wrong URL or token, would never succeed).
 * Redirects are not followed (a POST turned into a GET would lose the body): they are refused too.
 *
 * @example
 * const result = await deliverToSink({ request, fetch, timeoutMs: 10_000, signal: stopping.signal, nowMs: Date.now() })
 * if (result.outcome === 'delivered') ledger.notifications.markDelivered(row.id)
 */
export async function deliverToSink(parameters: {
  request: { url: string; headers: Record<string, string>; body: string }
  fetch: typeof globalThis.fetch
  timeoutMs: number
  /** Aborted when the notifier stops. */
  signal: AbortSignal
  nowMs: number
}): Promise<DeliveryOutcome> {
  const { request, timeoutMs, signal } = parameters
  if (signal.aborted) return { outcome: 'stopped' }
  let response: Response
  let body: string
  try {
    response = await parameters.fetch(request.url, {
      method: 'POST',
      headers: request.headers,
      body: request.body,
      redirect: 'manual',
      signal: AbortSignal.any([signal, AbortSignal.timeout(timeoutMs)]),
    })
    body = await response.text()
  } catch (error) {
    if (signal.aborted) return { outcome: 'stopped' }
    return { outcome: 'retry', error: networkError(error, timeoutMs) }
  }
  const status = response.status
  if (status >= 200 && status < 300) return { outcome: 'delivered', status }
  const error = `HTTP ${status}${body ? `: ${snippet(body)}` : ''}`
  if (status === 408 || status === 429 || status >= 500) {
    const retryAfterMs =
      status === 429 || status === 503
        ? parseRetryAfter(response.headers.get('retry-after'), body, parameters.nowMs)
        : undefined
    return retryAfterMs === undefined
      ? { outcome: 'retry', error }
      : { outcome: 'retry', error, retryAfterMs }
  }
  return { outcome: 'abandon', error }
}
