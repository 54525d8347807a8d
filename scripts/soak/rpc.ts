// Direct JSON-RPC to the sandbox's anvil chains (never through the fault proxies), every call
// bounded in time, and the seeded PRNG the soak draws its faults from.
import { seededRandom } from '@stockroute/sandbox/seededRandom.js'

/** A JSON-RPC call that failed: the node's error, a non-200 answer, or no answer in time. */
export class SoakRpcError extends Error {
  override name = 'SoakRpcError'
}

/**
 * One JSON-RPC call to `url`, given up after `timeoutMs` (default 5 s).
 *
 * @example
 * const latest = await rpc<string>(chain.rpcUrl, 'eth_blockNumber') // '0x2a'
 */
export async function rpc<T>(
  url: string,
  method: string,
  params: unknown[] = [],
  timeoutMs = 5_000,
): Promise<T> {
  let reply: Response
  try {
    reply = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
      signal: AbortSignal.timeout(timeoutMs),
    })
  } catch (error) {
    throw new SoakRpcError(`${method} to ${url}: ${(error as Error).message}`)
  }
  const text = await reply.text()
  if (!reply.ok) throw new SoakRpcError(`${method} to ${url}: HTTP ${reply.status} ${text.slice(0, 200)}`)
  let body: { result?: T; error?: { message?: string } }
  try {
    body = JSON.parse(text) as typeof body
  } catch {
    throw new SoakRpcError(`${method} to ${url}: not JSON: ${text.slice(0, 200)}`)
  }
  if (body.error)
    throw new SoakRpcError(`${method} to ${url}: ${body.error.message ?? JSON.stringify(body.error)}`)
  return body.result as T
}

/** A seeded PRNG (mulberry32) with the helpers the soak needs. */
export type Random = {
  /** Uniform in [0, 1). */
  next(): number
  /** A whole number from `min` to `max`, both included. */
  int(min: number, max: number): number
  /** True with probability `p`. */
  chance(p: number): boolean
  pick<T>(items: readonly T[]): T
}

/**
 * @example
 * const random = createRandom(7)
 * random.int(1, 2) // 1 or 2, the same sequence for seed 7
 */
export function createRandom(seed: number): Random {
  const next = seededRandom(seed)
  return {
    next,
    int: (min, max) => min + Math.floor(next() * (max - min + 1)),
    chance: (p) => next() < p,
    pick: <T>(items: readonly T[]) => {
      const item = items[Math.floor(next() * items.length)]
      if (item === undefined) throw new Error('pick from an empty list')
      return item
    },
  }
}

/** Resolves after `ms`, or at once when `signal` aborts (never rejects). */
export function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve()
    const timer = setTimeout(done, ms)
    signal?.addEventListener('abort', done, { once: true })
    function done() {
      clearTimeout(timer)
      signal?.removeEventListener('abort', done)
      resolve()
    }
  })
}
