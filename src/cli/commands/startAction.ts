import { plural } from '@stockroute/client/domain/plural.js'
import { loadDaemonConfig } from '../../config/config.js'
import type { DaemonReport } from '../../daemon/startDaemon.js'
import { unfinishedLeftByEmbeddedRun } from '../../daemon/unfinishedLeftByEmbeddedRun.js'
import { exitCodes } from '../exitCodes.js'
import { listenForShutdownSignals } from '../shutdown.js'

/** What `stockroute start` runs (its options: ./startCommand.ts): the daemon, until a signal or the duration. */
export async function runDaemon(options: { config: string; duration?: number }) {
  const config = loadDaemonConfig(options.config)
  // The daemon's modules load once the configuration is read: a wrong one is told at once (0.4 s
  // of CPU instead of 1.5 s).
  const { startDaemon } = await import('../../daemon/startDaemon.js')
  const daemon = await startDaemon({ config, durationSeconds: options.duration })
  let firstSignalAt = 0
  // Kept listening while stopping: a second signal (npm forwarding the same Ctrl-C) must not
  // kill the process before the executions in flight have finished.
  const signals = listenForShutdownSignals((signal) => {
    // The same Ctrl-C arrives twice under npm, within a moment: only a later one is news.
    if (Date.now() - firstSignalAt > 1_000)
      process.stderr.write(`${signal} again: already stopping, waiting for the executions in flight\n`)
  })
  const signalled = signals.first.then((signal) => {
    firstSignalAt = Date.now()
    return daemon.stop(`${signal} received`)
  })
  const report = await Promise.race([daemon.done, signalled])
  if (report.unfinished > 0) process.stderr.write(`${unfinishedAtStopLine(report, daemon.ledgerPath)}\n`)
  if (report.storageFault) process.exitCode = exitCodes.ledger
  // Timers of libraries (keep-alive sockets, file streams) must not hold the process open; a
  // stop by signal is a clean stop (exit code 0), not a death by it.
  setTimeout(() => process.exit(process.exitCode ?? 0), 200).unref()
}

/** What becomes of the executions a run left unfinished: recovered by the next start, unless the chains ended with the run. */
export function unfinishedAtStopLine(report: DaemonReport, ledgerPath: string): string {
  if (report.embedded) return unfinishedLeftByEmbeddedRun(report.unfinished, ledgerPath)
  return `${plural(report.unfinished, 'execution')} left unfinished: the next start recovers them`
}
