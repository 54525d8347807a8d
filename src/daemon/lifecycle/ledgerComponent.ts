import { dirname } from 'node:path'
import { setTimeout as sleep } from 'node:timers/promises'
import type { Address } from 'viem'
import { defaultOwnerCommand } from '../../store/ledgerOwner.js'
import { migrationProgressPrinter } from '../../store/migrationProgress.js'
import { type Ledger, openLedger } from '../../store/openLedger.js'
import { dataFolderAccess } from '../dataFolderAccess.js'
import type { DaemonComponent } from './daemonComponent.js'
import { type DaemonRun, need } from './daemonRun.js'

/**
 * The SQLite ledger, claimed by this process until it is closed. A ledger of an older stockroute
 * is migrated here; a long backfill prints its progress. A data folder other local users can
 * reach is warned about (a line on stderr and the log, with the chmod that closes it), never
 * changed: it may be the operator's own folder. In cluster mode it is taken over from a live owner
 * (this daemon holds the leases now), waiting while a process frozen mid-write holds the file's
 * lock, and the wallets' fences are raised before anything is signed.
 *
 * @example
 * const components = [tradingSetupComponent(run), ledgerComponent(run), engineComponent(run)]
 */
export function ledgerComponent(run: DaemonRun): DaemonComponent {
  return {
    name: 'ledger',
    async start() {
      const logger = need(run, 'logs').logger
      const path = need(run, 'ledgerPath')
      const cluster = run.parts.cluster
      const open = () =>
        openLedger({
          path,
          onWalCheckpointerError: (e) => logger.warn(e.message),
          onMigrationProgress: migrationProgressPrinter(run.progress),
          // Cluster mode: this daemon holds the wallets' leases, so a live owner has lost them.
          ...(cluster ? { owner: { command: defaultOwnerCommand(), takeOverLiveOwner: true } } : {}),
        })
      if (cluster) cluster.keeper.start() // renewed while it waits for the file's lock below
      const ledger = cluster ? await openWhenUnlocked(open, run) : open()
      run.parts.ledger = ledger
      if (cluster) {
        // Before anything is signed: a daemon that held these wallets before can store nothing more.
        cluster.keeper.attachLedger((ref, token, previous) =>
          ledger.walletFences.raise({
            chainId: ref.chainId,
            wallet: ref.wallet as Address,
            token,
            nodeId: cluster.nodeId,
            previous,
          }),
        )
      }
      // Its own files are owner-only by now; a folder the operator made looser is only reported.
      const access = dataFolderAccess(dirname(path))
      if (access.status === 'warn' || access.status === 'fail') {
        logger.warn({ dataDir: access.path, mode: access.mode, exposed: access.exposed }, access.message)
        run.progress(`warning: ${access.message}`)
      }
    },
    async stop() {
      run.parts.ledger?.close()
    },
  }
}

/**
 * Cluster mode: opens the ledger, waiting while another process holds its write lock. A daemon
 * frozen inside a ledger transaction (SIGSTOP, a VM pause) keeps SQLite's lock until it resumes or
 * dies; a standby that took its leases waits here (its own leases renewed), and the frozen one, once
 * it runs again, finishes that transaction, finds its leases taken and stops.
 */
async function openWhenUnlocked(open: () => Ledger, run: DaemonRun): Promise<Ledger> {
  let said = false
  for (;;) {
    try {
      return open()
    } catch (error) {
      const cause = (error as { cause?: { code?: unknown } }).cause
      if (!String(cause?.code ?? '').startsWith('SQLITE_BUSY') || run.leaseLost) throw error
      if (!said)
        run.write(
          'cluster: the ledger is locked by another process (one frozen mid-write keeps the lock until it resumes or dies); waiting for it',
        )
      said = true
      await sleep(1_000, undefined, { signal: run.shutdown.signal })
    }
  }
}
