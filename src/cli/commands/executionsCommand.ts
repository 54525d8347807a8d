import { type Command, InvalidArgumentError } from 'commander'
import { type ExecutionState, executionStates } from '../../store/executionStates.js'
import { lazyAction } from '../lazyAction.js'
import { parseChainId, parsePositiveInteger, parseTicker, wideOptionHelp, withConfig } from '../options.js'
import { parseStrategyOption } from '../parseStrategyOption.js'
import { parseTimeOption } from '../parseTimeOption.js'

/**
 * `stockroute executions [--state s1,s2] [--chain ID] [--ticker T] [--strategy ID] [--since T]
 * [--until T] [--limit N] [--json]`, `stockroute executions show <id>` and `stockroute executions
 * cancel <id> [--reason TEXT]`. Listing and showing go through the running daemon
 * (`GET /v1/executions`, `GET /v1/executions/:id`), or read the ledger read-only when none runs.
 * Cancelling needs the daemon: only it may be about to sign, and it cancels an execution not signed
 * yet (`POST /v1/executions/:id/cancel`); without a daemon nothing signs, so there is nothing to
 * race, and the command says to start the daemon or to halt instead. What they run is
 * ./executionsAction.ts.
 *
 * @example
 * registerExecutionsCommand(program)
 * // stockroute executions --state failed,expired --since 24h --config ./sbx/stockroute.json
 */
export function registerExecutionsCommand(program: Command) {
  const executions = withListFilters(
    withConfig(
      program
        .command('executions')
        // Options after a subcommand are the subcommand's (both have --config): `executions show 4 --config f`.
        .enablePositionalOptions()
        .description(
          'list executions, newest first (show <id>: one in detail; cancel <id>: stop one not signed yet)',
        ),
    ),
  ).action(lazyAction(() => import('./executionsAction.js'), 'listExecutions'))

  withConfig(executions.command('show').description('one execution: its timeline, transactions and fills'))
    .argument('<id>', 'execution id', parseExecutionId)
    .action(lazyAction(() => import('./executionsAction.js'), 'showExecution'))

  withConfig(executions.command('cancel').description('cancel an execution the daemon has not signed yet'))
    .argument('<id>', 'execution id', parseExecutionId)
    .option('--reason <text>', 'why (default: "operator: stockroute executions cancel")')
    .action(lazyAction(() => import('./executionsAction.js'), 'cancelExecution'))
}

/** The filters of `stockroute executions`. */
function withListFilters(command: Command): Command {
  return command
    .option(
      '--state <states>',
      `only these states, comma-separated: ${executionStates.join(', ')}`,
      parseStates,
    )
    .option('--chain <id>', 'only this chain', parseChainId)
    .option('--ticker <ticker>', 'only this ticker', parseTicker)
    .option('--strategy <id>', "only this strategy's executions", parseStrategyOption)
    .option(
      '--since <time>',
      'created at or after: ISO 8601 (2026-11-25T10:00Z) or an age (30m, 6h, 2d)',
      parseTimeOption,
    )
    .option('--until <time>', 'created before: ISO 8601 or an age (30m, 6h, 2d)', parseTimeOption)
    .option('--limit <n>', 'at most this many', parsePositiveInteger, 50)
    .option('--wide', wideOptionHelp)
}

function parseExecutionId(text: string): number {
  if (!/^[1-9]\d{0,14}$/.test(text))
    throw new InvalidArgumentError('must be an execution id: a positive whole number')
  return Number(text)
}

function parseStates(text: string): ExecutionState[] {
  const states = text.split(',').map((state) => state.trim())
  const known: readonly string[] = executionStates
  const unknown = states.filter((state) => !known.includes(state))
  if (unknown.length > 0)
    throw new InvalidArgumentError(
      `unknown state ${unknown.join(', ')}: the states are ${executionStates.join(', ')}`,
    )
  return states as ExecutionState[]
}
