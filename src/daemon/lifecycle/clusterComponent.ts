import { printable } from '@stockroute/client/domain/printable.js'
import { joinCluster } from '../../cluster/joinCluster.js'
import type { DaemonComponent } from './daemonComponent.js'
import { type DaemonRun, need } from './daemonRun.js'

/**
 * Cluster mode (docs/scale-out.md), when the configuration has a `cluster` section: joins the
 * cluster before the ledger is opened, and waits here, a standby, until this daemon holds the lease
 * of every wallet it trades with. A lease lost later (another daemon took it) stops the daemon
 * (`run.onLeaseLost`). Left last: the leases are given back once the engine drained and the ledger closed.
 *
 * @example
 * const components = [tradingSetupComponent(run), clusterComponent(run), ledgerComponent(run)]
 */
export function clusterComponent(run: DaemonRun): DaemonComponent {
  return {
    name: 'cluster',
    async start() {
      const config = need(run, 'config')
      const settings = config.daemon.cluster
      if (!settings) return
      const wallets = need(run, 'wallets')
      const logger = need(run, 'logs').logger.child({ component: 'cluster' })
      run.parts.cluster = await joinCluster({
        settings,
        apiKey: config.secrets.apiKey,
        requestsPerSecond: config.service.requestsPerSecond,
        wallets: [...wallets.byChain].flatMap(([chainId, accounts]) =>
          accounts.map((account) => ({ chainId, wallet: account.address })),
        ),
        ledgerPath: need(run, 'ledgerPath'),
        signal: run.shutdown.signal,
        // On stdout: an operator watching a standby sees whom it waits for, and when it takes over.
        progress: (line) => run.write(printable(line)),
        log: (line) => {
          logger.warn(line)
          run.write(printable(line))
        },
        onLost: (lease, why) => {
          const line = `cluster: lease of wallet ${lease.ref.wallet} on chain ${lease.ref.chainId} lost (${why}): this daemon signs nothing more and stops`
          logger.error({ chainId: lease.ref.chainId, wallet: lease.ref.wallet, token: lease.token }, line)
          run.onLeaseLost(line)
        },
      })
    },
    async stop() {
      await run.parts.cluster?.leave()
    },
  }
}
