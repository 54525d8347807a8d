import type { Engine } from '../../engine/index.js'
import { type ActivityPrinter, createActivityPrinter } from '../activity.js'
import { unfinishedLeftByEmbeddedRun } from '../unfinishedLeftByEmbeddedRun.js'
import type { DaemonComponent } from './daemonComponent.js'
import { type DaemonReport, type DaemonRun, need } from './daemonRun.js'

/**
 * What the operator reads: the wallets and the ledger at start, one line per finished execution,
 * and at a stop, once the engine has drained, the run's summary (`parts.report`).
 *
 * @example
 * const components = [notifierComponent(run), activityComponent(run), recoveryComponent(run)]
 */
export function activityComponent(run: DaemonRun): DaemonComponent {
  return {
    name: 'activity printer',
    async start() {
      const engine = need(run, 'engine')
      run.parts.printer = createActivityPrinter({
        ledger: need(run, 'ledger'),
        chains: engine.chains,
        write: run.write,
        fxRates: engine.settings.fxRates,
      })
      run.progress(`${walletsBanner(engine)}; ledger ${need(run, 'ledgerPath')}`)
    },
    async stop(cause) {
      if (cause.kind !== 'stop') return
      const printer = need(run, 'printer')
      const report = reportOf(run, printer, cause.reason)
      const ledgerPath = need(run, 'ledgerPath')
      const left = run.parts.sandbox ? unfinishedLeftByEmbeddedRun(report.unfinished, ledgerPath) : undefined
      run.write(printer.summary([left ?? `${report.unfinished} left unfinished for the next start`]))
      need(run, 'logs').logger.info({ report }, 'daemon stopped')
      run.parts.report = report
    },
  }
}

function reportOf(run: DaemonRun, printer: ActivityPrinter, reason: string): DaemonReport {
  const counts = printer.counts()
  return {
    reason,
    durationMs: Date.now() - run.startedAt,
    executions: {
      confirmed: counts.confirmed,
      failed: counts.failed,
      expired: counts.expired,
      rejected: counts.rejected,
    },
    unfinished: need(run, 'ledger').executions.listUnfinishedExecutions().length,
    embedded: run.parts.sandbox !== undefined,
    storageFault: need(run, 'ledger').storageFault !== undefined,
  }
}

/** The start banner's wallets: each chain's addresses, the main wallet (the service's maker) first. */
function walletsBanner(engine: Pick<Engine, 'chains'>): string {
  const chains = [...engine.chains.values()].map((chain) => {
    const [main, ...extra] = chain.wallets.map((wallet) => wallet.account.address)
    return `chain ${chain.chainId}: ${main} (main)${extra.map((address) => `, ${address}`).join('')}`
  })
  return `wallets ${chains.join('; ')}`
}
