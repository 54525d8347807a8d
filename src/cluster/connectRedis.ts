import { Redis } from 'ioredis'
import { ClusterError } from './clusterError.js'

/**
 * A connection to the cluster's Redis, open when this resolves. Commands fail at once while Redis
 * does not answer (no offline queue): a lease renewal must fail in time, not wait for a reconnect;
 * the client reconnects in the background every second at most.
 *
 * @example
 * const redis = await connectRedis('redis://127.0.0.1:6379')
 */
export async function connectRedis(url: string, options: { connectTimeoutMs?: number } = {}): Promise<Redis> {
  const redis = new Redis(url, {
    lazyConnect: true,
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    connectTimeout: options.connectTimeoutMs ?? 2_000,
    retryStrategy: (attempt) => Math.min(attempt * 100, 1_000),
    // A refused connection must not hold the process for ioredis's default 2 s after it gave up.
    disconnectTimeout: 200,
  })
  // Errors of the background reconnects are seen through the commands that fail meanwhile; the
  // last one names why the first connect failed (ECONNREFUSED…), which connect() itself does not.
  let lastError: Error | undefined
  redis.on('error', (error: Error) => {
    lastError = error
  })
  try {
    await redis.connect()
  } catch (error) {
    redis.disconnect()
    throw new ClusterError({
      code: 'REDIS_UNREACHABLE',
      shortMessage: `Cannot reach the cluster's Redis at ${redactedUrl(url)}: ${(lastError ?? (error as Error)).message.replace(/\.$/, '')}.`,
      remedy: 'Start Redis (redis-server), or correct cluster.redisUrl in the config.',
      details: { url: redactedUrl(url) },
      cause: error,
    })
  }
  return redis
}

/** The URL without its password, for messages. */
export function redactedUrl(url: string): string {
  return url.replace(/\/\/([^@/]*):([^@/]*)@/, '//$1:***@')
}
