import { startDaemonNotifier } from '../startDaemonNotifier.js'
import type { DaemonComponent } from './daemonComponent.js'
import { type DaemonRun, need } from './daemonRun.js'

/**
 * The notifier, when the configuration names sinks. Started before recovery (its first read marks
 * where a new sink starts, so recovery's events count); stopped after the engine has drained (the
 * last transitions and fills are in the outbox, sent at the next start).
 *
 * @example
 * const components = [engineComponent(run), notifierComponent(run), activityComponent(run)]
 */
export function notifierComponent(run: DaemonRun): DaemonComponent {
  return {
    name: 'notifier',
    async start() {
      run.parts.notifier = startDaemonNotifier({
        config: need(run, 'config'),
        ledger: need(run, 'ledger'),
        engine: need(run, 'engine'),
        logger: need(run, 'logs').logger,
      })
    },
    async stop() {
      await run.parts.notifier?.stop()
    },
  }
}
