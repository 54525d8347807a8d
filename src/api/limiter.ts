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
 * A limiter built on bottleneck: requests start at least 1000/rate ms apart.
 *
 * @example
 * const limiter = createRequestLimiter({ requestsPerSecond: 50 })
 */
export function createRequestLimiter(options: RequestLimiterOptions): RequestLimiter {
  if (!(options.requestsPerSecond > 0)) throw new RangeError('requestsPerSecond must be positive')
  const bottleneck = new Bottleneck({
    minTime: Math.ceil(1000 / options.requestsPerSecond),
    maxConcurrent: options.maxConcurrent ?? 16,
  })
  let pausedUntil = 0
  return {
    pauseFor(ms) {
      pausedUntil = Math.max(pausedUntil, Date.now() + ms)
    },
    schedule(job, signal) {
      return bottleneck.schedule(async () => {
        // Inside the slot, so requests queued behind a 429 wait too, in order.
        for (let wait = pausedUntil - Date.now(); wait > 0; wait = pausedUntil - Date.now()) {
          await sleep(wait, signal)
        }
        signal?.throwIfAborted()
        return job()
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
