import type { Command } from 'commander'
import { lazyAction } from '../lazyAction.js'

/**
 * `stockroute local-chains`: the sandbox's anvil chains alone, deployed and funded, until Ctrl-C.
 * The chains are loaded only when the command runs (./localChainsAction.ts).
 */
export function registerLocalChainsCommand(program: Command) {
  program
    .command('local-chains')
    .description('start the local anvil chains with the service contracts deployed and funded, until Ctrl-C')
    .option('--json', 'print one JSON description on stdout once ready (progress goes to stderr)')
    .action(lazyAction(() => import('./localChainsAction.js'), 'runLocalChains'))
}
