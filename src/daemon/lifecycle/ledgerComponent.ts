import { migrationProgressPrinter } from '../../store/migrationProgress.js'
import { openLedger } from '../../store/openLedger.js'
import type { DaemonComponent } from './daemonComponent.js'
import { type DaemonRun, need } from './daemonRun.js'

/**
 * The SQLite ledger, claimed by this process until it is closed. A ledger of an older stockroute
 * is migrated here; a long backfill prints its progress.
 *
 * @example
 * const components = [tradingSetupComponent(run), ledgerComponent(run), engineComponent(run)]
 */
export function ledgerComponent(run: DaemonRun): DaemonComponent {
  return {
    name: 'ledger',
    async start() {
      const logger = need(run, 'logs').logger
      run.parts.ledger = openLedger({
        path: need(run, 'ledgerPath'),
        onWalCheckpointerError: (e) => logger.warn(e.message),
        onMigrationProgress: migrationProgressPrinter(run.progress),
      })
    },
    async stop() {
      run.parts.ledger?.close()
    },
  }
}
