import { join } from 'node:path'
import type { Command } from 'commander'
import { ConfigError, loadDaemonConfig } from '../../config/config.js'
import { unfinishedLeftByEmbeddedRun } from '../../daemon/embeddedSandbox.js'
import { type DaemonReport, startDaemon } from '../../daemon/startDaemon.js'
import { plural } from '../../domain/plural.js'
import { formatCliError } from '../formatCliError.js'
import { parsePositiveInteger } from '../options.js'
import { listenForShutdownSignals } from '../shutdown.js'

/** The configuration `stockroute start` runs without --config: the embedded demo. */
export const defaultDaemonConfigPath = join(import.meta.dirname, '..', '..', '..', 'config', 'default.json')

/**
 * `stockroute start [--config FILE] [--duration SECONDS]`: runs the trading daemon until Ctrl-C,
 * SIGTERM or the duration; with the default config, on an embedded sandbox. Exit code 0 after a
 * clean stop (by the duration or by a signal), 2 for a bad configuration, 1 when it cannot start,
 * 3 after a storage fault.
 *
 * @example
 * registerStartCommand(program)
 * // stockroute start --duration 60
 */
export function registerStartCommand(program: Command) {
  program
    .command('start')
    .description(
      'run the trading daemon: strategies, swap API, cron jobs (default config: an embedded sandbox)',
    )
    .option(
      '--config <file>',
      'stockroute.json of a service, or a config with "sandbox": {"embedded": true}',
      defaultDaemonConfigPath,
    )
    .option(
      '--duration <seconds>',
      'stop after this many seconds (default: until Ctrl-C)',
      parsePositiveInteger,
    )
    .action(async (options: { config: string; duration?: number }) => {
      let config: ReturnType<typeof loadDaemonConfig>
      try {
        config = loadDaemonConfig(options.config)
      } catch (error) {
        if (!(error instanceof ConfigError)) throw error
        process.stderr.write(`${formatCliError(error)}\n`)
        process.exitCode = 2
        return
      }
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
      // Timers of libraries (keep-alive sockets, file streams) must not hold the process open; a
      // stop by signal is a clean stop (exit code 0), not a death by it.
      setTimeout(() => process.exit(process.exitCode ?? 0), 200).unref()
    })
}

/** What becomes of the executions a run left unfinished: recovered by the next start, unless the chains ended with the run. */
export function unfinishedAtStopLine(report: DaemonReport, ledgerPath: string): string {
  if (report.embedded) return unfinishedLeftByEmbeddedRun(report.unfinished, ledgerPath)
  return `${plural(report.unfinished, 'execution')} left unfinished: the next start recovers them`
}
