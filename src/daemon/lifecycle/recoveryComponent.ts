import { plural } from '@stockroute/client/domain/plural.js'
import type { RecoveryReport } from '../../engine/index.js'
import { messageOf } from '../jobs/index.js'
import type { DaemonComponent } from './daemonComponent.js'
import { type DaemonRun, need } from './daemonRun.js'

/**
 * Recovery of what a previous run left unfinished, in the background, chain by chain: a wallet takes
 * new intents once its nonces are sound. What it recovered is an event and a line; a stop waits for
 * it after the engine has drained (the drain's grace over, `run.shutdown` aborts it).
 *
 * @example
 * const components = [activityComponent(run), recoveryComponent(run), executionsInFlightComponent(run)]
 */
export function recoveryComponent(run: DaemonRun): DaemonComponent {
  return {
    name: 'recovery',
    async start() {
      const logger = need(run, 'logs').logger
      const { signal } = run.shutdown
      run.parts.recovery = need(run, 'engine')
        .recover({ signal })
        .then(
          (report) => {
            reportRecovery(run, report)
            logger.info({ recovery: report }, 'recovery done')
          },
          (error: unknown) => {
            if (!signal.aborted) logger.error({ error: messageOf(error) }, 'recovery failed')
          },
        )
    },
    async stop() {
      await run.parts.recovery
    },
  }
}

function reportRecovery(run: DaemonRun, report: RecoveryReport) {
  if (report.executions.length === 0 && report.fillsRecorded === 0) return
  need(run, 'ledger').events.append('recovery', {
    data: {
      message: `recovered ${plural(report.executions.length, 'unfinished execution')}, ${plural(report.fillsRecorded, 'fill')} from the logs`,
      executions: report.executions.map((e) => ({
        executionId: e.executionId,
        from: e.from,
        to: e.to,
      })),
      fillsRecorded: report.fillsRecorded,
    },
  })
  run.write(
    `recovered ${plural(report.executions.length, 'unfinished execution')} (${report.executions.map((e) => `${e.executionId} ${e.from}→${e.to}`).join(', ') || 'none'}), ${plural(report.fillsRecorded, 'fill')} from the logs`,
  )
}
