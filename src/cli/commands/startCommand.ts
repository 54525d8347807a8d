import type { Command } from 'commander'
import { configHelp } from '../defaultConfigPath.js'
import { lazyAction } from '../lazyAction.js'
import { parsePositiveInteger } from '../options.js'

/**
 * `stockroute start [--config FILE] [--duration SECONDS]`: runs the trading daemon until Ctrl-C,
 * SIGTERM or the duration; without --config and ./stockroute.json, the demo, on an embedded
 * sandbox. Exit code 0 after a clean stop (by the duration or by a signal); else the code of what
 * stopped it (../exitCodes.ts: `config` for a bad configuration, `ledger` after a storage fault or
 * for a ledger in use). The daemon is loaded only when the command runs (./startAction.ts).
 *
 * @example
 * registerStartCommand(program)
 * // stockroute start --duration 60
 */
export function registerStartCommand(program: Command) {
  program
    .command('start')
    .description(
      'run the trading daemon: strategies, swap API, cron jobs (without a config: the demo, on an embedded sandbox)',
    )
    .option(
      '--config <file>',
      configHelp('stockroute.json of a service, or a config with "sandbox": {"embedded": true}'),
    )
    .option(
      '--duration <seconds>',
      'stop after this many seconds (default: until Ctrl-C)',
      parsePositiveInteger,
    )
    .action(lazyAction(() => import('./startAction.js'), 'runDaemon'))
}
