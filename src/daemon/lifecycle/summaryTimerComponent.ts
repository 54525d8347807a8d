import { startSummaryTimer } from '../summaryTimer.js'
import type { DaemonComponent } from './daemonComponent.js'
import { type DaemonRun, need } from './daemonRun.js'

/**
 * The summary line every `summaryIntervalSeconds`.
 *
 * @example
 * const components = [cronJobsComponent(run), summaryTimerComponent(run), marketDataTicksComponent(run)]
 */
export function summaryTimerComponent(run: DaemonRun): DaemonComponent {
  let timer: NodeJS.Timeout | undefined
  return {
    name: 'summary timer',
    async start() {
      timer = startSummaryTimer({
        status: run.status,
        ledger: need(run, 'ledger'),
        printer: need(run, 'printer'),
        write: run.write,
        intervalMs: need(run, 'config').daemon.summaryIntervalSeconds * 1000,
      })
    },
    async stop() {
      clearInterval(timer)
    },
  }
}
