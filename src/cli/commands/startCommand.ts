import { join } from 'node:path'
import type { Command } from 'commander'
import { lazyAction } from '../lazyAction.js'
import { parsePositiveInteger } from '../options.js'

/** The configuration `stockroute start` runs without --config: the embedded demo. */
export const defaultDaemonConfigPath = join(import.meta.dirname, '..', '..', '..', 'config', 'default.json')

/**
 * `stockroute start [--config FILE] [--duration SECONDS]`: runs the trading daemon until Ctrl-C,
 * SIGTERM or the duration; with the default config, on an embedded sandbox. Exit code 0 after a
 * clean stop (by the duration or by a signal), 2 for a bad configuration, 1 when it cannot start,
 * 3 after a storage fault. The daemon is loaded only when the command runs (./startAction.ts).
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
    .action(lazyAction(() => import('./startAction.js'), 'runDaemon'))
}
