import type { Redis } from 'ioredis'
import { ClusterError } from './clusterError.js'
import type { LeaseKeeper } from './leaseKeeper.js'
import { readLeases, readNodeCard } from './nodeCards.js'
import type { ClusterKeys } from './redisKeys.js'

/** Where a swap posted to this daemon runs: here, or on the daemon at `controlUrl`. */
export type SwapDestination = { local: true } | { local: false; nodeId: string; controlUrl: string }

/** How long a swap's claim on a wallet lasts: a day, the longest a client resends one key. */
const claimTtlMs = 86_400_000

/**
 * Routes the swap API's intents through the cluster (docs/scale-out.md): a swap posted to any
 * daemon runs on a daemon holding a wallet on its chain, once per idempotency key. The first daemon
 * to see a key claims it in Redis for one wallet (its own on the chain, else one of another daemon);
 * every later post of the key, to any daemon, goes to whoever holds that wallet's lease, whose
 * ledger answers a resent key with the same execution. A standby that takes the wallet over
 * inherits the claim with the ledger.
 *
 * @example
 * const where = await router.destination({ idempotencyKey: 'order-1', chainId: 31337 })
 */
export function createIntentRouter(parameters: {
  redis: Redis
  keys: ClusterKeys
  nodeId: string
  keeper: LeaseKeeper
}) {
  const { redis, keys, nodeId, keeper } = parameters
  const candidateOn = async (chainId: number): Promise<string> => {
    const mine = keeper.leases().find((lease) => lease.ref.chainId === chainId && lease.state === 'held')
    if (mine) return `${chainId}:${mine.ref.wallet.toLowerCase()}`
    const others = await readLeases(redis, keys, chainId)
    const pick = others[Math.floor(Math.random() * others.length)]
    if (!pick)
      throw new ClusterError({
        code: 'NO_OWNER',
        shortMessage: `No daemon of the cluster holds a wallet on chain ${chainId} now.`,
        remedy:
          'Start a daemon with a wallet on that chain (stockroute cluster status lists them), then send the swap again with the same Idempotency-Key.',
        details: { chainId },
      })
    return `${chainId}:${pick.wallet}`
  }
  return {
    async destination(intent: { idempotencyKey: string; chainId: number }): Promise<SwapDestination> {
      const candidate = await candidateOn(intent.chainId)
      const claimKey = keys.intent(intent.idempotencyKey)
      const claimed = (await redis.set(claimKey, candidate, 'PX', claimTtlMs, 'NX')) === 'OK'
      const wallet = claimed ? candidate : ((await redis.get(claimKey)) ?? candidate)
      const [chain, address] = wallet.split(':')
      const holder = await redis.get(keys.lease(Number(chain), address ?? ''))
      const holderId = holder?.slice(0, holder.lastIndexOf('|'))
      if (holderId === nodeId) return { local: true }
      const card = holderId ? await readNodeCard(redis, keys, holderId) : undefined
      if (!holderId || !card?.controlUrl)
        throw new ClusterError({
          code: 'NO_OWNER',
          shortMessage: `Idempotency-Key ${JSON.stringify(intent.idempotencyKey)} belongs to wallet ${address} on chain ${chain}, whose daemon ${holderId ? `${holderId} has no control API` : 'is being replaced (its lease is free)'}.`,
          remedy:
            'Send the swap again with the same Idempotency-Key in a few seconds: a standby takes the wallet over within its lease time.',
          details: { idempotencyKey: intent.idempotencyKey, chainId: Number(chain), wallet: address },
        })
      return { local: false, nodeId: holderId, controlUrl: card.controlUrl }
    },
  }
}

export type IntentRouter = ReturnType<typeof createIntentRouter>
