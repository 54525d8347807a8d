import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createClusterLimiter } from '../../src/cluster/clusterLimiter.js'
import { clusterKeysOf } from '../../src/cluster/redisKeys.js'
import { useRedisServer } from '../helpers/redisServer.js'

// The key's budget shared through a real redis-server by limiters of different daemons (one
// connection each): what one starts counts for all, and a 429 heard by one pauses the others.

const redisServer = useRedisServer()
const connections: Redis[] = []
beforeAll(() => {
  for (let i = 0; i < 2; i += 1) connections.push(new Redis(redisServer().url))
})
afterAll(() => {
  for (const connection of connections) connection.disconnect()
})

const limiterOn = (redis: Redis, name: string) =>
  createClusterLimiter({ redis, keys: clusterKeysOf(name), apiKey: 'key-1', requestsPerSecond: 10, share: 1 })

describe('cluster limiter', () => {
  it('counts the requests of every daemon on the key in one window', async () => {
    const [a, b] = connections.map((redis) => limiterOn(redis, 'shared'))
    if (!a || !b) throw new Error('two connections expected')
    await Promise.all([
      ...Array.from({ length: 3 }, () => a.schedule(async () => 'a')),
      ...Array.from({ length: 2 }, () => b.schedule(async () => 'b')),
    ])
    const used = await b.usedThisSecond()
    expect(used.budget).toBe(10)
    // Five in this window, or fewer when a new second began in between: never per daemon.
    expect(used.used).toBeLessThanOrEqual(5)
    expect(used.used).toBeGreaterThan(0)
  })

  it("a Retry-After heard by one daemon holds the other's next request until the block is over", async () => {
    const [a, b] = connections.map((redis) => limiterOn(redis, 'paused'))
    if (!a || !b) throw new Error('two connections expected')
    a.pauseFor(1_500)
    // The block is in Redis once the key's window holds more than the budget.
    await expect.poll(async () => (await a.usedThisSecond()).used, { timeout: 2_000 }).toBe(10)
    const budgetKey = `${clusterKeysOf('paused').budgetPrefix}:*`
    const [blocked] = (await connections[0]?.keys(budgetKey)) ?? []
    expect(blocked).toBeDefined()
    // Inside B's request: the key's window as Redis holds it then. Blocked, it holds budget + 1.
    const seen = await b.schedule(async () => connections[0]?.get(blocked as string))
    expect(Number(seen ?? 0)).toBeLessThanOrEqual(10)
  })
})
