import { scheduleDaemonJobs } from '../scheduleDaemonJobs.js'
import type { DaemonComponent } from './daemonComponent.js'
import { type DaemonRun, need } from './daemonRun.js'

/**
 * The cron jobs (token lists, corporate actions, reconciliation, the daily summary). They only
 * read, or catch up on what the next run catches up on too: a stop aborts them at once (an RPC read
 * may take its whole timeout) and waits for them once the ticks have stopped.
 *
 * @example
 * const components = [controlApiComponent(run), cronJobsComponent(run), summaryTimerComponent(run)]
 */
export function cronJobsComponent(run: DaemonRun): DaemonComponent {
  let jobs: ReturnType<typeof scheduleDaemonJobs> | undefined
  let stopped: Promise<void> | undefined
  return {
    name: 'cron jobs',
    async start() {
      const engine = need(run, 'engine')
      jobs = scheduleDaemonJobs({
        settings: need(run, 'config').daemon,
        ledger: need(run, 'ledger'),
        service: need(run, 'service'),
        engine,
        chains: [...engine.chains.values()].map((chain) => ({
          chainId: chain.chainId,
          publicClient: chain.publicClient,
          owners: chain.wallets.map((wallet) => wallet.account.address),
        })),
        owner: need(run, 'owner'),
        logger: need(run, 'logs').logger,
        metrics: need(run, 'metrics'),
        status: run.status,
        write: run.write,
        refreshTokens: need(run, 'refreshTokens'),
        signal: run.shutdown.signal,
      })
    },
    interrupt(reason) {
      if (!jobs) return
      for (const activity of jobs.activities()) run.write(`waiting for ${activity}`)
      stopped = jobs.stop(new Error(`the daemon is stopping (${reason})`))
    },
    async stop() {
      stopped ??= jobs?.stop()
      await stopped
    },
  }
}
