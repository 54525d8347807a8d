import { removeEmbeddedConnection } from '../embeddedConnection.js'
import { startEmbeddedSandbox } from '../embeddedSandbox.js'
import type { DaemonComponent } from './daemonComponent.js'
import type { DaemonRun } from './daemonRun.js'

/**
 * The configuration the daemon trades with: on an embedded one, the sandbox it starts (two anvil
 * chains and the service, in process), stopped last, after the engine has drained on it. While it
 * runs, commands reach it through the file it writes beside the ledger (../embeddedConnection.ts).
 *
 * @example
 * const components = [sandboxComponent(run), logsComponent(run)]
 */
export function sandboxComponent(run: DaemonRun): DaemonComponent {
  return {
    name: 'embedded sandbox',
    async start() {
      if (run.given.kind !== 'embedded') {
        run.parts.config = run.given.config
        return
      }
      const embedded = await startEmbeddedSandbox(run.given, run.progress)
      run.parts.sandbox = embedded.sandbox
      run.parts.config = embedded.config
    },
    async stop() {
      if (!run.parts.sandbox) return
      if (run.parts.config) removeEmbeddedConnection(run.parts.config.ledgerPath, process.pid)
      await run.parts.sandbox.stop()
    },
  }
}
