import { join } from 'node:path'
import type { Command } from 'commander'
import { ConfigError, loadDaemonConfig } from '../../daemon/config.js'
import { startDaemon } from '../../daemon/startDaemon.js'
import { parsePositiveInteger } from '../options.js'
import { waitForShutdownSignal } from '../shutdown.js'

/** The configuration `stockroute start` runs without --config: the embedded demo. */
export const defaultDaemonConfigPath = join(import.meta.dirname, '..', '..', '..', 'config', 'default.json')

/**
 * `stockroute start [--config FILE] [--duration SECONDS]`: runs the trading daemon until Ctrl-C,
 * SIGTERM or the duration; with the default config, on an embedded sandbox. Exit code 0 after a
 * clean stop, 2 for a bad configuration, 1 when it cannot start.
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
        process.stderr.write(`${error.message}\n`)
        process.exitCode = 2
        return
      }
      const daemon = await startDaemon({ config, durationSeconds: options.duration })
      const signalled = waitForShutdownSignal().then((signal) => daemon.stop(`${signal} received`))
      const report = await Promise.race([daemon.done, signalled])
      if (report.unfinished > 0)
        process.stderr.write(
          `${report.unfinished} executions left unfinished: the next start recovers them\n`,
        )
      // Timers of libraries (keep-alive sockets, file streams) must not hold the process open.
      setTimeout(() => process.exit(process.exitCode ?? 0), 200).unref()
    })
}
