import type { RequestLimiter } from '@stockroute/client/api/limiter.js'
import { abortable } from '@stockroute/client/domain/abortable.js'
import type { Redis } from 'ioredis'
import PQueue from 'p-queue'
import { RateLimiterQueue, RateLimiterRedis } from 'rate-limiter-flexible'
import { apiKeyIdOf, type ClusterKeys } from './redisKeys.js'

/** A key's request budget shared by the cluster's daemons, and what it has used. */
export type ClusterLimiter = RequestLimiter & {
  /** Requests started with the key in the current one-second window, by every daemon. */
  usedThisSecond(): Promise<{ used: number; budget: number }>
}

/**
 * One request budget per API key across all the cluster's daemons (docs/scale-out.md), on
 * rate-limiter-flexible's Redis limiter: at most `budget` requests start in any one-second window
 * (Redis's clock, one counter per key), each daemon waiting its turn in a queue of its own; a 429's
 * Retry-After blocks the key in Redis, so every daemon on it pauses. The service's bucket holds twice
 * its rate, so a full window after a full window is never refused.
 *
 * @example
 * const limiter = createClusterLimiter({ redis, keys, apiKey, requestsPerSecond: 30, share: 0.95 })
 * createServiceClient({ ..., limiter })
 */
export function createClusterLimiter(parameters: {
  redis: Redis
  keys: ClusterKeys
  apiKey: string
  /** The key's rate at the service. */
  requestsPerSecond: number
  /** The share of it the cluster uses (cluster.keyBudgetShare). */
  share: number
  /** Requests of this daemon in flight at once (default 16). */
  maxConcurrent?: number
}): ClusterLimiter {
  const budget = Math.max(1, Math.floor(parameters.requestsPerSecond * parameters.share))
  const keyId = apiKeyIdOf(parameters.apiKey)
  const window = new RateLimiterRedis({
    storeClient: parameters.redis,
    keyPrefix: parameters.keys.budgetPrefix,
    points: budget,
    duration: 1,
  })
  const turns = new RateLimiterQueue(window, { maxQueueSize: 100_000 })
  const inFlight = new PQueue({ concurrency: parameters.maxConcurrent ?? 16 })
  let pausedUntil = 0
  return {
    schedule(job, signal) {
      signal?.throwIfAborted()
      return inFlight.add(
        async () => {
          // The call's budget bounds the wait for a turn too (a turn taken after it is only wasted).
          await abortable(turns.removeTokens(1, keyId), signal)
          // A pause this daemon heard of before Redis blocked the key (the block is set asynchronously).
          const wait = pausedUntil - Date.now()
          if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
          signal?.throwIfAborted()
          return job()
        },
        signal ? { signal } : {},
      ) as Promise<Awaited<ReturnType<typeof job>>>
    },
    pauseFor(ms) {
      pausedUntil = Math.max(pausedUntil, Date.now() + ms)
      // Every daemon on the key: its window is full until the Retry-After is over.
      window.block(keyId, Math.max(1, Math.ceil(ms / 1000))).catch(() => {})
    },
    async usedThisSecond() {
      const state = await window.get(keyId)
      return { used: Math.min(state?.consumedPoints ?? 0, budget), budget }
    },
  }
}
