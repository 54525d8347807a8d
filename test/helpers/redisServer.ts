// A redis-server for one test file (./redisProcess.ts), started before its tests, stopped after them.
import { afterAll, beforeAll } from 'vitest'
import { type RedisServer, startRedisServer } from './redisProcess.js'

export { freePort, type RedisServer, startRedisServer } from './redisProcess.js'

/** A redis-server for this test file, started before its tests and stopped after them. */
export function useRedisServer(): () => RedisServer {
  let server: RedisServer | undefined
  beforeAll(async () => {
    server = await startRedisServer()
  })
  afterAll(async () => {
    await server?.stop()
  })
  return () => {
    if (!server) throw new Error('redis-server not started yet: call it inside a test')
    return server
  }
}
