import type { Command } from 'commander'
import { lazyAction } from '../lazyAction.js'
import { parsePort, parsePositiveInteger } from '../options.js'

/**
 * `stockroute sandbox`: the local service and its chains, until Ctrl-C. The sandbox is loaded only
 * when the command runs (./sandboxAction.ts).
 */
export function registerSandboxCommand(program: Command) {
  program
    .command('sandbox')
    .description(
      'run the local sandbox of the service (HTTP API + anvil chains with its contracts) until Ctrl-C',
    )
    .option('--port <port>', 'port of the HTTP service on 127.0.0.1 (default: a free one)', parsePort)
    .option(
      '--rate <n>',
      'requests per second allowed to the API key it creates (default 100; bursts twice that)',
      parsePositiveInteger,
    )
    .option('--json', 'print one JSON description on stdout once ready (progress goes to stderr)')
    .option(
      '--write-config <dir>',
      'write DIR/stockroute.json and DIR/.env pointing stockroute at this sandbox',
    )
    .action(lazyAction(() => import('./sandboxAction.js'), 'runSandbox'))
}
