import type { Command } from 'commander'
import { configHelp } from '../defaultConfigPath.js'
import { lazyAction } from '../lazyAction.js'

/**
 * `stockroute config check --config FILE`: validates the file (a service configuration and the
 * secrets it names, or an embedded-sandbox one), then the strategies' lots and ticks against their
 * tickers' rules (the service's ticker info, or the embedded sandbox's catalogue), and prints a
 * redacted summary. Exit 2 when anything is invalid. The checks are loaded only when the command
 * runs (./configCheckAction.ts).
 */
export function registerConfigCommand(program: Command) {
  const config = program.command('config').description('configuration files')
  config
    .command('check')
    .description(
      "validate a stockroute.json, the secrets it names (from the environment or the .env beside it) and its strategies' lots and ticks (from the service's ticker info)",
    )
    .option('--config <file>', configHelp('the config to check'))
    .option('--json', 'print the summary as JSON')
    .option(
      '--no-service',
      "do not ask the service for the tickers' lots and spread tables (not checked then)",
    )
    .action(lazyAction(() => import('./configCheckAction.js'), 'checkConfig'))
}
