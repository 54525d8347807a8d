import type { Command } from 'commander'
import { configHelp } from '../defaultConfigPath.js'
import { lazyAction } from '../lazyAction.js'
import { parseChainId } from '../options.js'

/**
 * `stockroute positions [--chain ID] [--json]`: the ledger's positions (balance, average price,
 * cost basis, realized PnL), through the running daemon (`GET /v1/positions`) or read-only from
 * the ledger when none runs. What it runs is ./positionsAction.ts.
 *
 * @example
 * registerPositionsCommand(program)
 * // stockroute positions --chain 31337 --config ./sbx/stockroute.json
 */
export function registerPositionsCommand(program: Command) {
  program
    .command('positions')
    .description("the ledger's positions: balance, average price, cost basis, realized PnL")
    .option('--config <file>', configHelp('the config whose daemon or ledger to use (no secrets needed)'))
    .option('--chain <id>', 'only this chain', parseChainId)
    .option('--json', 'print the positions as JSON on stdout')
    .action(lazyAction(() => import('./positionsAction.js'), 'listPositions'))
}
