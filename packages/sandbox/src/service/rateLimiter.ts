/**
 * A token bucket per identity (API key, or wallet for JWT calls): `rate` requests per second
 * sustained, bursts up to `burst`. `take` answers how long to wait when the bucket is empty, and
 * counts what it let through and what it refused (`tally`: what a load test reads of the service).
 */
export type RateLimiter = {
  /** 0 when the request may proceed, else the milliseconds until one would be allowed. */
  take: (identity: string, rate: number, nowMs: number) => number
  /** Requests let through and refused (429) so far, by identity (`key:<apiKey>`, `wallet:<address>`). */
  tally: () => ReadonlyMap<string, { accepted: number; limited: number }>
}

export function createRateLimiter(burstFactor = 2): RateLimiter {
  const buckets = new Map<string, { tokens: number; updatedMs: number }>()
  const counts = new Map<string, { accepted: number; limited: number }>()
  return {
    take(identity, rate, nowMs) {
      const burst = Math.max(1, rate * burstFactor)
      const bucket = buckets.get(identity) ?? { tokens: burst, updatedMs: nowMs }
      // A clock that steps back (NTP, a test's clock) neither refills nor drains the bucket.
      const elapsedMs = Math.max(0, nowMs - bucket.updatedMs)
      bucket.tokens = Math.min(burst, bucket.tokens + (elapsedMs / 1000) * rate)
      bucket.updatedMs = Math.max(bucket.updatedMs, nowMs)
      buckets.set(identity, bucket)
      const count = counts.get(identity) ?? { accepted: 0, limited: 0 }
      counts.set(identity, count)
      if (bucket.tokens >= 1) {
        bucket.tokens -= 1
        count.accepted += 1
        return 0
      }
      count.limited += 1
      return Math.ceil(((1 - bucket.tokens) / rate) * 1000)
    },
    tally: () => new Map([...counts].map(([identity, count]) => [identity, { ...count }])),
  }
}
