import { drainEngine } from '../drainEngine.js'
import type { DaemonComponent } from './daemonComponent.js'
import { type DaemonRun, need } from './daemonRun.js'

/**
 * The executions in flight at a stop: once nothing submits any more (ticks, jobs and the control API
 * stopped), the engine closes and they get `shutdownGraceMs` to finish, then what has not been
 * broadcast is cancelled. The sandbox's chains and service stay up until then. After a failed
 * start the engine is only closed.
 *
 * @example
 * const components = [recoveryComponent(run), executionsInFlightComponent(run), tokenListsComponent(run)]
 */
export function executionsInFlightComponent(run: DaemonRun): DaemonComponent {
  return {
    name: 'executions in flight',
    async start() {},
    async stop(cause) {
      const closeEngine = need(run, 'closeEngine')
      if (cause.kind !== 'stop') return closeEngine()
      await drainEngine({
        closed: closeEngine(),
        ledger: need(run, 'ledger'),
        write: run.write,
        graceMs: need(run, 'config').daemon.shutdownGraceMs,
        abort: () => run.shutdown.abort(new Error(`the daemon is stopping (${cause.reason})`)),
      })
    },
  }
}
