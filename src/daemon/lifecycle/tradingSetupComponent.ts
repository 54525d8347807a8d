import { ledgerPathOf } from '../../config/ledgerPath.js'
import { walletsOf } from '../../config/wallets.js'
import { createStrategy } from '../../strategy/index.js'
import type { DaemonComponent } from './daemonComponent.js'
import { type DaemonRun, need } from './daemonRun.js'

/**
 * The configuration's strategies and wallets, made (and so checked) before anything is opened,
 * and where the ledger lives. Nothing to stop.
 *
 * @example
 * const components = [logsComponent(run), tradingSetupComponent(run), ledgerComponent(run)]
 */
export function tradingSetupComponent(run: DaemonRun): DaemonComponent {
  return {
    name: 'strategies and wallets',
    async start() {
      const config = need(run, 'config')
      run.parts.strategies = config.daemon.strategies.map((entry) => createStrategy(entry))
      // The main wallet trades on every chain and is the service's maker; a chain's extra wallets add to it.
      run.parts.wallets = walletsOf(config)
      run.parts.owner = run.parts.wallets.main.address
      run.parts.ledgerPath = ledgerPathOf(config)
    },
    async stop() {},
  }
}
