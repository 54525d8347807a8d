import Bottleneck from 'bottleneck'

/**
 * Spaces requests so one API key never exceeds its rate, and holds every request back after a
 * 429 for as long as the service's Retry-After says.
 */
export type RequestLimiter = {
  schedule: <T>(job: () => Promise<T>, signal?: AbortSignal) => Promise<T>
  /** Holds all requests until `ms` from now (a 429's Retry-After). */
  pauseFor: (ms: number) => void
}

export type RequestLimiterOptions = {
  /** Sustained requests per second; the sandbox allows 100 per key by default. */
  requestsPerSecond: number
  /** Requests in flight at once. Default 16. */
  maxConcurrent?: number
}

/**
 * A limiter built on bottleneck (queue, concurrency cap): requests start at least 1000/rate ms
 * apart, and none starts before a 429's Retry-After has passed.
 *
 * @example
 * const limiter = createRequestLimiter({ requestsPerSecond: 50 })
 */
export function createRequestLimiter(options: RequestLimiterOptions): RequestLimiter {
  if (!(options.requestsPerSecond > 0)) throw new RangeError('requestsPerSecond must be positive')
  const minTimeMs = 1000 / options.requestsPerSecond
  const maxConcurrent = options.maxConcurrent ?? 16
  const bottleneck = new Bottleneck({ maxConcurrent })
  let pausedUntil = 0
  let lastStartMs = Number.NEGATIVE_INFINITY
  let queued = 0
  let running = 0
  const run = async <T>(job: () => Promise<T>): Promise<T> => {
    lastStartMs = performance.now()
    running += 1
    try {
      return await job()
    } finally {
      running -= 1
    }
  }
  return {
    pauseFor(ms) {
      pausedUntil = Math.max(pausedUntil, performance.now() + ms)
    },
    schedule(job, signal) {
      signal?.throwIfAborted()
      const now = performance.now()
      // Idle fast path: bottleneck's queue costs milliseconds per job (its datastore yields to the
      // timer loop), too much on the quote-to-broadcast path when nothing is waiting anyway.
      if (queued === 0 && running < maxConcurrent && now >= pausedUntil && now - lastStartMs >= minTimeMs) {
        return run(job)
      }
      queued += 1
      return bottleneck.schedule(async () => {
        queued -= 1
        // Spacing and pauses are kept here, by start time, for queued and fast-path jobs alike.
        for (;;) {
          const wait = Math.max(pausedUntil, lastStartMs + minTimeMs) - performance.now()
          // A fast-path job may hold a slot bottleneck does not count.
          if (wait <= 0 && running < maxConcurrent) break
          await sleep(Math.max(wait, 1), signal)
        }
        signal?.throwIfAborted()
        return run(job)
      })
    },
  }
}

const shared = new Map<string, RequestLimiter>()

/** The one limiter of an API key in this process, shared by every client and call using that key. */
export function sharedLimiterFor(apiKey: string, options: RequestLimiterOptions): RequestLimiter {
  let limiter = shared.get(apiKey)
  if (!limiter) {
    limiter = createRequestLimiter(options)
    shared.set(apiKey, limiter)
  }
  return limiter
}

export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}
