import { Redis } from 'ioredis'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLeaseKeeper, type HeldLease } from '../../src/cluster/leaseKeeper.js'
import { clusterKeysOf } from '../../src/cluster/redisKeys.js'
import { walletLeases } from '../../src/cluster/walletLeases.js'
import { useRedisServer } from '../helpers/redisServer.js'

// The lease keeper against a real redis-server: the check before every signature by the keeper's
// own (driven) monotonic clock, all-or-none acquisition, tokens that only grow (above the ledger's
// fence, and after Redis lost its data), and a lease another daemon took reported lost.

const redisServer = useRedisServer()
let redis: Redis
beforeAll(async () => {
  redis = new Redis(redisServer().url)
})
afterAll(() => redis.disconnect())

const wallet = '0x1111111111111111111111111111111111111111'
const other = '0x2222222222222222222222222222222222222222'
const ttl = { leaseTtlMs: 4_000 }

function keeperOf(nodeId: string, name: string, options: { floor?: number; wallets?: string[] } = {}) {
  let clock = 1_000
  const lost: { lease: HeldLease; why: string }[] = []
  const keeper = createLeaseKeeper({
    leases: walletLeases(redis, clusterKeysOf(name)),
    nodeId,
    settings: ttl,
    wallets: (options.wallets ?? [wallet]).map((address) => ({ chainId: 31337, wallet: address })),
    floorOf: () => options.floor ?? 0,
    onLost: (lease, why) => lost.push({ lease, why }),
    log: () => {},
    now: () => clock,
  })
  return { keeper, lost, advance: (ms: number) => (clock += ms) }
}

describe('lease keeper', () => {
  it('signs only while the last renewal is younger than 80% of the time to live, by its own clock', async () => {
    const a = keeperOf('a', 'safe-window')
    await a.keeper.acquireAll({ signal: AbortSignal.timeout(5_000), onWaiting: () => {} })
    const fence = a.keeper.fenceFor(31337, wallet)
    expect(fence.tokenForSigning()).toBe(1)
    a.advance(3_199)
    expect(fence.tokenForSigning()).toBe(1)
    a.advance(1)
    expect(() => fence.tokenForSigning()).toThrow(expect.objectContaining({ code: 'LEASE_NOT_HELD' }))
    expect(() => a.keeper.fenceFor(31337, other).tokenForSigning()).toThrow(
      expect.objectContaining({ code: 'LEASE_NOT_HELD' }),
    )
    await a.keeper.release()
  })

  it('a token is above the ledger fence, and above the one before after Redis lost the lease', async () => {
    const a = keeperOf('a', 'floor', { floor: 41 })
    await a.keeper.acquireAll({ signal: AbortSignal.timeout(5_000), onWaiting: () => {} })
    expect(a.keeper.leases().map((lease) => lease.token)).toEqual([42])
    const raised: [number, number | undefined][] = []
    a.keeper.attachLedger((_, token, previous) => raised.push([token, previous]))
    expect(raised).toEqual([[42, undefined]])
    // Redis restarted empty: the renewal finds nothing and takes the lease again, newer.
    await redis.flushall()
    a.keeper.start()
    await expect.poll(() => a.keeper.leases()[0]?.token, { timeout: 5_000 }).toBeGreaterThan(42)
    expect(raised[1]).toEqual([a.keeper.leases()[0]?.token, 42])
    expect(a.lost).toEqual([])
    await a.keeper.release()
  })

  it('all or none: a standby holding one of two wallets gives it back, then takes both once they are free', async () => {
    const a = keeperOf('a', 'all-or-none', { wallets: [other] })
    await a.keeper.acquireAll({ signal: AbortSignal.timeout(5_000), onWaiting: () => {} })
    const b = keeperOf('b', 'all-or-none', { wallets: [wallet, other] })
    const waiting: string[] = []
    const taking = b.keeper.acquireAll({
      signal: AbortSignal.timeout(10_000),
      onWaiting: (line) => waiting.push(line),
    })
    await expect.poll(() => waiting.length, { timeout: 5_000 }).toBeGreaterThan(0)
    expect(waiting[0]).toMatch(/driven by a/)
    // While it waits it holds neither: the first wallet it took was given back.
    expect(await redis.get(clusterKeysOf('all-or-none').lease(31337, wallet))).toBeNull()
    await a.keeper.release()
    await taking
    expect(
      b.keeper
        .leases()
        .map((lease) => lease.ref.wallet)
        .sort(),
    ).toEqual([wallet, other].sort())
    await b.keeper.release()
  })

  it('a lease another daemon took is lost: reported once, and nothing more is signed', async () => {
    const a = keeperOf('a', 'taken')
    await a.keeper.acquireAll({ signal: AbortSignal.timeout(5_000), onWaiting: () => {} })
    // A's lease expired while it was frozen, and B took it.
    await redis.del(clusterKeysOf('taken').lease(31337, wallet))
    const b = keeperOf('b', 'taken')
    await b.keeper.acquireAll({ signal: AbortSignal.timeout(5_000), onWaiting: () => {} })
    expect(b.keeper.leases()[0]?.token).toBe(2)
    a.keeper.start()
    await expect.poll(() => a.lost.length, { timeout: 5_000 }).toBe(1)
    expect(a.lost[0]?.why).toMatch(/another daemon/)
    expect(() => a.keeper.fenceFor(31337, wallet).tokenForSigning()).toThrow(
      expect.objectContaining({ code: 'LEASE_NOT_HELD' }),
    )
    await a.keeper.release()
    // A's release leaves B's lease alone.
    expect(await redis.get(clusterKeysOf('taken').lease(31337, wallet))).toBe('b|2')
    await b.keeper.release()
  })
})
