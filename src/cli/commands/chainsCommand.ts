import type { Command } from 'commander'
import { lazyAction } from '../lazyAction.js'
import { wideOptionHelp, withServiceOptions } from '../options.js'

/**
 * `stockroute chains [--config FILE] [--json]`: the chains the service runs on, with the contract
 * each one executes quotes with and its default asset. The service client is loaded only when the
 * command runs (./chainsAction.ts).
 *
 * @example
 * registerChainsCommand(program)
 * // stockroute chains --config ./sbx/stockroute.json
 */
export function registerChainsCommand(program: Command) {
  withServiceOptions(
    program.command('chains').description('list the chains the service runs on (GET /api/v1/chains)'),
  )
    .option('--wide', wideOptionHelp)
    .action(lazyAction(() => import('./chainsAction.js'), 'listChains'))
}
