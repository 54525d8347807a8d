import { performance } from 'node:perf_hooks'
import { setTimeout as sleep } from 'node:timers/promises'
import { TransactionManagerError } from '../transactions/errors.js'
import type { SigningFence } from '../transactions/signingFence.js'
import { type ClusterSettings, renewIntervalOf, safeLeaseMsOf } from './clusterSettings.js'
import type { WalletRef, walletLeases } from './walletLeases.js'

/** One of this daemon's leases as it stands. */
export type HeldLease = {
  ref: WalletRef
  token: number
  /**
   * `held`: renewed in time; `lost`: another daemon holds it, or took the wallet over on the ledger
   * (this daemon stops). A held lease whose last renewal is older than its safe time signs nothing.
   */
  state: 'held' | 'lost'
  /** Until when (monotonic ms, `performance.now()`) it is surely held: the last renewal sent plus the safe time. */
  validUntil: number
}

/** Raises the wallet's fence on the ledger to `token`; throws when another daemon drove it since `previous`. */
export type RaiseFence = (ref: WalletRef, token: number, previous: number | undefined) => void

/**
 * The owner of this daemon's wallet leases (docs/scale-out.md): takes them all before the daemon
 * opens its ledger (a standby waits here), renews them four times a time to live, and answers the
 * transaction managers' question before every signature ({@link LeaseKeeper.fenceFor}). A lease that
 * Redis lost (a restart) is taken again with a newer token when no other daemon took it; one that
 * another daemon holds is lost, and the daemon stops (`onLost`).
 */
export type LeaseKeeper = {
  /** Waits until this daemon holds every lease (all or none, in one order: two standbys never deadlock). */
  acquireAll(options: { signal: AbortSignal; onWaiting: (line: string) => void }): Promise<void>
  /** Raises every lease's fence on the ledger now, and after each lease taken again later. */
  attachLedger(raise: RaiseFence): void
  /** Starts renewing. */
  start(): void
  fenceFor(chainId: number, wallet: string): SigningFence
  leases(): readonly HeldLease[]
  /** Stops renewing and gives the leases back, so that a standby need not wait out their time to live. */
  release(): Promise<void>
}

type Leases = ReturnType<typeof walletLeases>

/** @example const keeper = createLeaseKeeper({ leases, nodeId, settings, wallets, floorOf, onLost, log }) */
export function createLeaseKeeper(parameters: {
  leases: Leases
  nodeId: string
  settings: Pick<ClusterSettings, 'leaseTtlMs'>
  wallets: readonly WalletRef[]
  /** The wallet's fence on the ledger (0 when none): a token taken is always above it. */
  floorOf: (ref: WalletRef) => number
  onLost: (lease: HeldLease, why: string) => void
  log: (line: string) => void
  now?: () => number
}): LeaseKeeper {
  const { leases, nodeId, settings } = parameters
  const now = parameters.now ?? (() => performance.now())
  const ttlMs = settings.leaseTtlMs
  const renewMs = renewIntervalOf(settings)
  const safeMs = safeLeaseMsOf(settings)
  const order = [...parameters.wallets].sort(
    (a, b) => a.chainId - b.chainId || a.wallet.localeCompare(b.wallet),
  )
  const held = new Map<string, HeldLease>()
  let raiseFence: RaiseFence | undefined
  let timer: NodeJS.Timeout | undefined
  let renewing: Promise<void> | undefined
  let redisFailing = false
  const keyOf = (chainId: number, wallet: string) => `${chainId}:${wallet.toLowerCase()}`

  const lose = (lease: HeldLease, why: string) => {
    if (lease.state === 'lost') return
    lease.state = 'lost'
    parameters.onLost(lease, why)
  }

  /** One renewal of one lease; a lease Redis no longer has is taken again when no one else took it. */
  const renewOne = async (lease: HeldLease) => {
    const sentAt = now()
    const result = await leases.renew(lease.ref, { nodeId, token: lease.token, ttlMs })
    if (result === 'renewed') {
      lease.validUntil = sentAt + safeMs
      return
    }
    if (result === 'taken') return lose(lease, 'another daemon holds its lease')
    const again = await leases.acquire(lease.ref, { nodeId, ttlMs, floor: lease.token })
    if (!again.acquired) return lose(lease, `${again.holder} took its lease`)
    try {
      raiseFence?.(lease.ref, again.token, lease.token)
    } catch (error) {
      return lose(lease, (error as Error).message)
    }
    parameters.log(
      `cluster: lease of wallet ${lease.ref.wallet} on chain ${lease.ref.chainId} taken again (Redis had lost it), fencing token ${lease.token} → ${again.token}`,
    )
    lease.token = again.token
    lease.validUntil = sentAt + safeMs
  }

  const renewAll = async () => {
    const live = [...held.values()].filter((lease) => lease.state === 'held')
    const results = await Promise.allSettled(live.map(renewOne))
    const failed = results.find((result) => result.status === 'rejected')
    if (failed && !redisFailing)
      parameters.log(
        `cluster: cannot renew the wallet leases (${(failed.reason as Error).message}); signing stops when they may expire, and resumes once Redis answers`,
      )
    if (!failed && redisFailing) parameters.log('cluster: Redis answers again; the wallet leases are renewed')
    redisFailing = failed !== undefined
  }

  const tryAcquireAll = async (): Promise<{ holder: string; ttlMs: number; ref: WalletRef } | undefined> => {
    const taken: HeldLease[] = []
    for (const ref of order) {
      const sentAt = now()
      const result = await leases.acquire(ref, { nodeId, ttlMs, floor: parameters.floorOf(ref) })
      if (!result.acquired) {
        await Promise.allSettled(
          taken.map((lease) => leases.release(lease.ref, { nodeId, token: lease.token })),
        )
        return { holder: result.holder, ttlMs: result.ttlMs, ref }
      }
      taken.push({ ref, token: result.token, state: 'held', validUntil: sentAt + safeMs })
    }
    for (const lease of taken) held.set(keyOf(lease.ref.chainId, lease.ref.wallet), lease)
    return undefined
  }

  return {
    async acquireAll({ signal, onWaiting }) {
      let said = ''
      for (;;) {
        signal.throwIfAborted()
        let line: string
        try {
          const busy = await tryAcquireAll()
          if (!busy) return
          line = `standby: wallet ${busy.ref.wallet} on chain ${busy.ref.chainId} is driven by ${busy.holder} (its lease ends in ${Math.max(0, busy.ttlMs)} ms unless renewed); waiting to take over`
        } catch (error) {
          line = `standby: cannot reach the cluster's Redis (${(error as Error).message}); trying again`
        }
        // Said once per holder, not every try.
        const gist = line.replace(/\(its lease ends in \d+ ms/, '(')
        if (gist !== said) onWaiting(line)
        said = gist
        await sleep(renewMs, undefined, { signal })
      }
    },
    attachLedger(raise) {
      raiseFence = raise
      for (const lease of held.values()) {
        try {
          raise(lease.ref, lease.token, undefined)
        } catch (error) {
          lose(lease, (error as Error).message)
        }
      }
    },
    start() {
      timer ??= setInterval(() => {
        renewing ??= renewAll().finally(() => {
          renewing = undefined
        })
      }, renewMs)
    },
    fenceFor(chainId, wallet) {
      const key = keyOf(chainId, wallet)
      return {
        tokenForSigning() {
          const lease = held.get(key)
          const left = lease ? lease.validUntil - now() : 0
          if (!lease || lease.state === 'lost' || left <= 0)
            throw new TransactionManagerError({
              code: 'LEASE_NOT_HELD',
              shortMessage: `Wallet ${wallet} on chain ${chainId}: this daemon does not hold its lease for sure (${!lease ? 'never taken' : lease.state === 'lost' ? 'another daemon took it' : `not renewed for ${Math.round(safeMs - left)} ms`}); nothing is signed.`,
              remedy:
                'Check that Redis answers (stockroute cluster status); a lease taken by another daemon stops this one.',
              details: { chainId, wallet, nodeId },
            })
          return lease.token
        },
      }
    },
    leases: () => [...held.values()],
    async release() {
      clearInterval(timer)
      timer = undefined
      await renewing
      await Promise.allSettled(
        [...held.values()]
          .filter((lease) => lease.state === 'held')
          .map((lease) => leases.release(lease.ref, { nodeId, token: lease.token })),
      )
    },
  }
}
