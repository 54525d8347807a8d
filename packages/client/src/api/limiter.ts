import PQueue from 'p-queue'

/**
 * Keeps one API key within its rate: bursts up to the key's limit go out at once, then no more
 * than the limit start in any one-second window; after a 429 every request waits as long as the
 * service's Retry-After says.
 */
export type RequestLimiter = {
  schedule: <T>(job: () => Promise<T>, signal?: AbortSignal) => Promise<T>
  /** Holds all requests not yet started until `ms` from now (a 429's Retry-After). */
  pauseFor: (ms: number) => void
}

export type RequestLimiterOptions = {
  /** The key's limit, requests per second; the sandbox allows 100 per key by default. */
  requestsPerSecond: number
  /** Requests in flight at once. Default 16. */
  maxConcurrent?: number
}

/**
 * A limiter on p-queue's sliding window (`strict`): at most `requestsPerSecond` requests start in
 * any rolling second, so a burst up to the limit starts at once instead of being spaced out (the
 * service's token bucket allows twice that as a burst), and a pause holds the queue after a 429.
 * One limiter per key per process (see {@link sharedLimiterFor}); several processes sharing a key
 * each need a share of its limit.
 *
 * @example
 * const limiter = createRequestLimiter({ requestsPerSecond: 50 })
 * const reply = await limiter.schedule(() => fetch(url))
 */
export function createRequestLimiter(options: RequestLimiterOptions): RequestLimiter {
  if (!(options.requestsPerSecond > 0)) throw new RangeError('requestsPerSecond must be positive')
  // p-queue counts whole requests per interval: a rate below 1/s becomes 1 per longer interval.
  const intervalCap = Math.max(1, Math.floor(options.requestsPerSecond))
  const queue = new PQueue({
    concurrency: options.maxConcurrent ?? 16,
    intervalCap,
    interval: Math.round((1000 * intervalCap) / options.requestsPerSecond),
    strict: true,
  })
  let resumeTimer: NodeJS.Timeout | undefined
  let pausedUntil = 0
  return {
    pauseFor(ms) {
      const until = Date.now() + ms
      if (until <= pausedUntil) return
      pausedUntil = until
      queue.pause()
      clearTimeout(resumeTimer)
      resumeTimer = setTimeout(() => queue.start(), ms)
      resumeTimer.unref()
    },
    schedule(job, signal) {
      signal?.throwIfAborted()
      return queue.add(job, signal ? { signal } : {}) as Promise<Awaited<ReturnType<typeof job>>>
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
