import { dirname } from 'node:path'
import type { Address } from 'viem'
import { defaultOwnerCommand } from '../../store/ledgerOwner.js'
import { migrationProgressPrinter } from '../../store/migrationProgress.js'
import { openLedger } from '../../store/openLedger.js'
import { dataFolderAccess } from '../dataFolderAccess.js'
import type { DaemonComponent } from './daemonComponent.js'
import { type DaemonRun, need } from './daemonRun.js'

/**
 * The SQLite ledger, claimed by this process until it is closed. A ledger of an older stockroute
 * is migrated here; a long backfill prints its progress. A data folder other local users can
 * reach is warned about (a line on stderr and the log, with the chmod that closes it), never
 * changed: it may be the operator's own folder. In cluster mode it is taken over from a live owner
 * (this daemon holds the leases now) and the wallets' fences are raised before anything is signed.
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
      const ledger = openLedger({
        path,
        onWalCheckpointerError: (e) => logger.warn(e.message),
        onMigrationProgress: migrationProgressPrinter(run.progress),
        // Cluster mode: this daemon holds the wallets' leases, so a live owner has lost them.
        ...(cluster ? { owner: { command: defaultOwnerCommand(), takeOverLiveOwner: true } } : {}),
      })
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
        cluster.keeper.start()
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
