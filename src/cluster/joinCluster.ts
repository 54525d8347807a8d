import { hostname } from 'node:os'
import type { Redis } from 'ioredis'
import { type ClusterLimiter, createClusterLimiter } from './clusterLimiter.js'
import type { ClusterSettings } from './clusterSettings.js'
import { renewIntervalOf } from './clusterSettings.js'
import { connectRedis } from './connectRedis.js'
import { createIntentRouter, type IntentRouter } from './intentRouter.js'
import { createLeaseKeeper, type HeldLease, type LeaseKeeper } from './leaseKeeper.js'
import { type NodeCard, publishNodeCard, removeNodeCard } from './nodeCards.js'
import { readLedgerFences } from './readLedgerFences.js'
import { clusterKeysOf } from './redisKeys.js'
import { type WalletRef, walletLeases } from './walletLeases.js'

/** This daemon's membership of a cluster, from joining (as a standby) to leaving. */
export type DaemonCluster = {
  nodeId: string
  redis: Redis
  keeper: LeaseKeeper
  /** The API key's budget, shared with the cluster's other daemons. */
  limiter: ClusterLimiter
  router: IntentRouter
  /** Names where this daemon's control API listens, on its card. */
  setControlUrl(url: string | null): void
  /** Gives the leases back and removes the card (a clean stop); closes the connection. */
  leave(): Promise<void>
}

/**
 * Joins the cluster (docs/scale-out.md): connects to Redis, shows this daemon's card as a standby,
 * waits until it holds the lease of every wallet it trades with (printing who holds them meanwhile),
 * then turns active. The caller opens the ledger only after this resolves, raises the fences
 * (`keeper.attachLedger`) and starts the renewals (`keeper.start`).
 *
 * @example
 * const cluster = await joinCluster({ settings, apiKey, requestsPerSecond: 30, wallets, ledgerPath, progress, log, onLost })
 */
export async function joinCluster(parameters: {
  settings: ClusterSettings
  apiKey: string
  requestsPerSecond: number
  wallets: readonly WalletRef[]
  ledgerPath: string
  signal: AbortSignal
  progress: (line: string) => void
  log: (line: string) => void
  onLost: (lease: HeldLease, why: string) => void
}): Promise<DaemonCluster> {
  const { settings } = parameters
  const nodeId = settings.nodeId ?? `${hostname()}-${process.pid}`
  const keys = clusterKeysOf(settings.name)
  const redis = await connectRedis(settings.redisUrl)
  const fences = readLedgerFences(parameters.ledgerPath)
  const keeper = createLeaseKeeper({
    leases: walletLeases(redis, keys),
    nodeId,
    settings,
    wallets: parameters.wallets,
    floorOf: (ref) => fences.get(`${ref.chainId}:${ref.wallet.toLowerCase()}`) ?? 0,
    onLost: parameters.onLost,
    log: parameters.log,
  })
  const card: NodeCard = {
    nodeId,
    pid: process.pid,
    host: hostname(),
    role: 'standby',
    controlUrl: null,
    ledgerPath: parameters.ledgerPath,
    wallets: [...parameters.wallets],
    startedAtMs: Date.now(),
    seenAtMs: Date.now(),
  }
  const renewMs = renewIntervalOf(settings)
  // The card lives two times to live: longer than any lease, so that a lease always names a daemon with a card.
  const publish = () => {
    card.seenAtMs = Date.now()
    return publishNodeCard(redis, keys, card, 2 * settings.leaseTtlMs).catch(() => {})
  }
  await publish()
  const cardTimer = setInterval(() => void publish(), renewMs)
  try {
    await keeper.acquireAll({ signal: parameters.signal, onWaiting: parameters.progress })
  } catch (error) {
    clearInterval(cardTimer)
    await removeNodeCard(redis, keys, nodeId).catch(() => {})
    redis.disconnect()
    throw error
  }
  card.role = 'active'
  await publish()
  parameters.progress(
    `cluster ${settings.name}: node ${nodeId} holds the leases of ${parameters.wallets.length} wallet(s) (fencing tokens ${keeper
      .leases()
      .map((lease) => lease.token)
      .join(', ')})`,
  )
  const limiter = createClusterLimiter({
    redis,
    keys,
    apiKey: parameters.apiKey,
    requestsPerSecond: parameters.requestsPerSecond,
    share: settings.keyBudgetShare,
  })
  let left: Promise<void> | undefined
  return {
    nodeId,
    redis,
    keeper,
    limiter,
    router: createIntentRouter({ redis, keys, nodeId, keeper }),
    setControlUrl(url) {
      card.controlUrl = url
      void publish()
    },
    leave() {
      left ??= (async () => {
        clearInterval(cardTimer)
        card.role = 'stopping'
        await keeper.release()
        await removeNodeCard(redis, keys, nodeId).catch(() => {})
        await redis.quit().catch(() => redis.disconnect())
      })()
      return left
    },
  }
}
