// A real redis-server (Debian's, 7.x) for cluster tests and bench:cluster: started on a free loopback
// port with a temporary folder and no persistence (a restart loses everything, as a Redis without
// persistence does), stopped by its pid. No vitest here: the bench imports it too.
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Redis } from 'ioredis'

export type RedisServer = {
  url: string
  port: number
  pid: () => number | undefined
  /** SIGKILL, then a new redis-server on the same port, empty. */
  restart(options?: { downMs?: number }): Promise<void>
  stop(): Promise<void>
}

/** A free loopback port, as the kernel hands one out. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer()
    server.once('error', reject)
    server.listen(0, '127.0.0.1', () => {
      const address = server.address()
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0))
    })
  })
}

/**
 * Starts redis-server on `port` (default: a free one) and waits until it answers PING.
 *
 * @example
 * const redis = await startRedisServer()
 * await redis.stop()
 */
export async function startRedisServer(port?: number): Promise<RedisServer> {
  const chosen = port ?? (await freePort())
  const dir = mkdtempSync(join(tmpdir(), 'stockroute-redis-'))
  let child: ChildProcess | undefined
  const launch = async () => {
    child = spawn(
      'redis-server',
      [
        '--port',
        String(chosen),
        '--bind',
        '127.0.0.1',
        '--dir',
        dir,
        '--save',
        '',
        '--appendonly',
        'no',
        '--protected-mode',
        'yes',
      ],
      { stdio: 'ignore' },
    )
    const started = child
    const failed = new Promise<never>((_, reject) =>
      started.once('error', (error) =>
        reject(new Error(`cannot start redis-server (${error.message}): install Debian's redis-server`)),
      ),
    )
    await Promise.race([answers(chosen), failed])
  }
  const kill = async (signal: NodeJS.Signals) => {
    const running = child
    if (!running || running.exitCode !== null || running.signalCode !== null) return
    const exited = new Promise((resolve) => running.once('exit', resolve))
    running.kill(signal)
    await exited
  }
  await launch()
  return {
    url: `redis://127.0.0.1:${chosen}`,
    port: chosen,
    pid: () => child?.pid,
    async restart(options = {}) {
      await kill('SIGKILL')
      if (options.downMs) await new Promise((resolve) => setTimeout(resolve, options.downMs))
      await launch()
    },
    async stop() {
      await kill('SIGTERM')
      rmSync(dir, { recursive: true, force: true })
    },
  }
}

/** Waits (5 s at most) until a Redis on `port` answers PING. */
async function answers(port: number): Promise<void> {
  const deadline = Date.now() + 5_000
  for (;;) {
    const client = new Redis({
      port,
      host: '127.0.0.1',
      lazyConnect: true,
      maxRetriesPerRequest: 0,
      retryStrategy: () => null,
    })
    client.on('error', () => {})
    try {
      await client.connect()
      if ((await client.ping()) === 'PONG') return
    } catch (error) {
      if (Date.now() > deadline)
        throw new Error(`redis-server on port ${port} did not answer in 5 s: ${(error as Error).message}`)
    } finally {
      client.disconnect()
    }
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
