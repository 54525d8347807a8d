import type { Redis } from 'ioredis'
import type { ClusterKeys } from './redisKeys.js'

// Each script runs atomically in Redis: a lease is taken, renewed or given back only by a daemon
// that sees it free or its own, and its fencing token comes from a counter that only grows (the
// ledger's fence is its floor, so that a Redis that lost its data never hands out an older token).
const acquireScript = `
local current = redis.call('GET', KEYS[1])
if current then
  local holder, token = string.match(current, '^(.*)|(%d+)$')
  if holder == ARGV[1] then
    redis.call('PEXPIRE', KEYS[1], ARGV[2])
    return {1, tonumber(token), 0}
  end
  return {0, holder or '', redis.call('PTTL', KEYS[1])}
end
local token = redis.call('INCR', KEYS[2])
local floor = tonumber(ARGV[3])
if token <= floor then
  token = floor + 1
  redis.call('SET', KEYS[2], token)
end
redis.call('SET', KEYS[1], ARGV[1] .. '|' .. token, 'PX', ARGV[2])
return {1, token, 0}
`

const renewScript = `
local current = redis.call('GET', KEYS[1])
if current == ARGV[1] then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
  return 1
end
if not current then return 0 end
return -1
`

const releaseScript = `
if redis.call('GET', KEYS[1]) == ARGV[1] then return redis.call('DEL', KEYS[1]) end
return 0
`

/** What taking a lease found. */
export type AcquireResult =
  | { acquired: true; token: number }
  | { acquired: false; holder: string; ttlMs: number }

/** What a renewal found: still ours, gone (expired, or Redis lost it), or another daemon's. */
export type RenewResult = 'renewed' | 'gone' | 'taken'

/** A wallet as the cluster names it. */
export type WalletRef = { chainId: number; wallet: string }

/**
 * The lease operations on one Redis connection, each one atomic (a Lua script).
 *
 * @example
 * const leases = walletLeases(redis, keys)
 * const result = await leases.acquire({ chainId: 31337, wallet }, { nodeId: 'a', ttlMs: 10_000, floor: 0 })
 */
export function walletLeases(redis: Redis, keys: ClusterKeys) {
  return {
    /** Takes the lease when it is free (or already this node's); the token is above `floor`. */
    async acquire(
      ref: WalletRef,
      options: { nodeId: string; ttlMs: number; floor: number },
    ): Promise<AcquireResult> {
      const reply = (await redis.eval(
        acquireScript,
        2,
        keys.lease(ref.chainId, ref.wallet),
        keys.fence(ref.chainId, ref.wallet),
        options.nodeId,
        options.ttlMs,
        options.floor,
      )) as [number, number | string, number]
      return reply[0] === 1
        ? { acquired: true, token: Number(reply[1]) }
        : { acquired: false, holder: String(reply[1]), ttlMs: Number(reply[2]) }
    },
    /** Extends the lease when it is still `nodeId|token`. */
    async renew(
      ref: WalletRef,
      options: { nodeId: string; token: number; ttlMs: number },
    ): Promise<RenewResult> {
      const reply = (await redis.eval(
        renewScript,
        1,
        keys.lease(ref.chainId, ref.wallet),
        `${options.nodeId}|${options.token}`,
        options.ttlMs,
      )) as number
      return reply === 1 ? 'renewed' : reply === 0 ? 'gone' : 'taken'
    },
    /** Gives the lease back when it is still `nodeId|token` (a clean stop: a standby need not wait). */
    async release(ref: WalletRef, options: { nodeId: string; token: number }): Promise<void> {
      await redis.eval(
        releaseScript,
        1,
        keys.lease(ref.chainId, ref.wallet),
        `${options.nodeId}|${options.token}`,
      )
    },
  }
}

/** A lease's holder and token, as `lease:` holds them; undefined for a value of another form. */
export function parseLeaseValue(value: string): { nodeId: string; token: number } | undefined {
  const match = /^(.*)\|(\d+)$/.exec(value)
  return match?.[1] !== undefined && match[2] !== undefined
    ? { nodeId: match[1], token: Number(match[2]) }
    : undefined
}
