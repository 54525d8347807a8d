import type { Redis } from 'ioredis'
import type { ClusterKeys } from './redisKeys.js'
import { parseLeaseValue, type WalletRef } from './walletLeases.js'

/** A daemon as the cluster sees it: its card in Redis, renewed with its leases. */
export type NodeCard = {
  nodeId: string
  pid: number
  host: string
  /** `standby`: waiting for its wallets' leases; `active`: trading; `stopping`. */
  role: 'standby' | 'active' | 'stopping'
  /** Where its control API listens (swaps forwarded to it go there); null until it does. */
  controlUrl: string | null
  ledgerPath: string
  wallets: WalletRef[]
  startedAtMs: number
  seenAtMs: number
}

/** A lease as Redis holds it now. */
export type LeaseView = WalletRef & { nodeId: string; token: number; ttlMs: number }

/**
 * Writes the daemon's card, alive for `ttlMs`: a card not renewed in time is gone with its daemon.
 *
 * @example
 * await publishNodeCard(redis, keys, card, 20_000)
 */
export async function publishNodeCard(
  redis: Redis,
  keys: ClusterKeys,
  card: NodeCard,
  ttlMs: number,
): Promise<void> {
  await redis
    .multi()
    .set(keys.node(card.nodeId), JSON.stringify(card), 'PX', ttlMs)
    .sadd(keys.nodes, card.nodeId)
    .exec()
}

/** Removes the daemon's card (a clean stop). */
export async function removeNodeCard(redis: Redis, keys: ClusterKeys, nodeId: string): Promise<void> {
  await redis.multi().del(keys.node(nodeId)).srem(keys.nodes, nodeId).exec()
}

/** The cards of the daemons alive now; the ids of gone ones are dropped from the set. */
export async function readNodeCards(redis: Redis, keys: ClusterKeys): Promise<NodeCard[]> {
  const ids = (await redis.smembers(keys.nodes)).sort()
  if (ids.length === 0) return []
  const values = await redis.mget(ids.map((id) => keys.node(id)))
  const gone = ids.filter((_, index) => values[index] === null)
  if (gone.length > 0) await redis.srem(keys.nodes, ...gone)
  return values.flatMap((value) => (value === null ? [] : [JSON.parse(value) as NodeCard]))
}

/** The card of one daemon, if it is alive. */
export async function readNodeCard(
  redis: Redis,
  keys: ClusterKeys,
  nodeId: string,
): Promise<NodeCard | undefined> {
  const value = await redis.get(keys.node(nodeId))
  return value === null ? undefined : (JSON.parse(value) as NodeCard)
}

/** Every lease held now (optionally on one chain), with its holder, token and time left. */
export async function readLeases(redis: Redis, keys: ClusterKeys, chainId?: number): Promise<LeaseView[]> {
  const pattern = chainId === undefined ? keys.leasePattern : keys.lease(chainId, '*')
  const names: string[] = []
  let cursor = '0'
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', pattern, 'COUNT', 200)
    cursor = next
    names.push(...batch)
  } while (cursor !== '0')
  names.sort()
  if (names.length === 0) return []
  const pipeline = redis.pipeline()
  for (const name of names) pipeline.get(name).pttl(name)
  const replies = (await pipeline.exec()) ?? []
  return names.flatMap((name, index) => {
    const value = replies[2 * index]?.[1] as string | null
    const ttlMs = Number(replies[2 * index + 1]?.[1] ?? -2)
    const lease = value === null ? undefined : parseLeaseValue(value)
    const [, , chain, wallet] = name.slice(name.indexOf(':lease:')).split(':')
    return lease && chain && wallet ? [{ chainId: Number(chain), wallet, ...lease, ttlMs }] : []
  })
}
