import type { Command } from 'commander'
import { lazyAction } from '../lazyAction.js'
import { withConfig } from '../options.js'
import type { SwitchOptions } from './strategiesAction.js'

/**
 * `stockroute strategies [--json]`: the configured strategies, whether each runs (the config's
 * choice unless an operator switched it) and its last run; through the running daemon
 * (`GET /v1/strategies`), or from the config and the ledger's switches (read-only) when none runs.
 * `stockroute strategies enable|disable <id> [--reason TEXT]` switch one through the daemon (kept
 * across restarts); they need it running. What they run is ./strategiesAction.ts.
 *
 * @example
 * registerStrategiesCommand(program)
 * // stockroute strategies disable dca-aapl --reason "earnings today" --config ./sbx/stockroute.json
 */
export function registerStrategiesCommand(program: Command) {
  const strategies = withConfig(
    program
      .command('strategies')
      // Options after a subcommand are the subcommand's (both have --config): `executions show 4 --config f`.
      .enablePositionalOptions()
      .description('the configured strategies and whether each runs (enable|disable <id>: switch one)'),
  ).action(lazyAction(() => import('./strategiesAction.js'), 'listStrategies'))
  for (const action of ['enable', 'disable'] as const)
    withConfig(
      strategies
        .command(action)
        .description(`${action} a strategy in the running daemon (kept across restarts)`),
    )
      .argument('<id>', 'strategy id, as in the config')
      .option('--reason <text>', `why (default: "operator: stockroute strategies ${action}")`)
      .action(async (id: string, options: SwitchOptions) => {
        const { switchStrategy } = await import('./strategiesAction.js')
        await switchStrategy(action, id, options)
      })
}
