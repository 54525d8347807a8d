import { createDaemonLogger } from '../logger.js'
import type { DaemonComponent } from './daemonComponent.js'
import { type DaemonRun, need } from './daemonRun.js'

/**
 * The daemon's log file (`data/stockroute.log`), flushed when the daemon stops.
 *
 * @example
 * const components = [sandboxComponent(run), logsComponent(run)]
 */
export function logsComponent(run: DaemonRun): DaemonComponent {
  return {
    name: 'logs',
    async start() {
      const config = need(run, 'config')
      run.parts.logs = createDaemonLogger({ dataDir: config.dataDir, level: config.daemon.logLevel })
    },
    async stop() {
      run.parts.logs?.flush()
    },
  }
}
