import { Command } from 'commander'
import { addCommandExamples, commandsBelow } from './commandExamples.js'
import { registerChainsCommand } from './commands/chainsCommand.js'
import { registerClusterCommand } from './commands/clusterCommand.js'
import { registerConfigCommand } from './commands/configCommand.js'
import { registerDoctorCommand } from './commands/doctorCommand.js'
import { registerEventsCommand } from './commands/eventsCommand.js'
import { registerExecutionsCommand } from './commands/executionsCommand.js'
import { registerKillSwitchCommands } from './commands/killSwitchCommand.js'
import { registerLocalChainsCommand } from './commands/localChainsCommand.js'
import { registerMarketCommand } from './commands/marketCommand.js'
import { registerPositionsCommand } from './commands/positionsCommand.js'
import { registerQuoteCommand } from './commands/quoteCommand.js'
import { registerReportCommand } from './commands/reportCommand.js'
import { registerSandboxCommand } from './commands/sandboxCommand.js'
import { registerStartCommand } from './commands/startCommand.js'
import { registerStrategiesCommand } from './commands/strategiesCommand.js'
import { registerSwapCommand } from './commands/swapCommand.js'
import { registerTokensCommand } from './commands/tokensCommand.js'
import { fillDefaultConfig } from './defaultConfigPath.js'
import { exitCategoryOf, exitCodes, exitCodesHelp } from './exitCodes.js'
import { formatCliError } from './formatCliError.js'
import { reportUnknownOptionsFirst } from './options.js'
import { packageVersion } from './packageVersion.js'

/**
 * Builds the `stockroute` command line; each command is a thin layer over the library. Only the
 * commands' definitions (./commands/*Command.ts: names, options, help) load here; each action
 * imports its implementation (./commands/*Action.ts) when its command runs, so that `--version`,
 * `--help` and a command that reads one file do not load the engine, the chains or the sandbox.
 */
export function buildProgram(): Command {
  const program = new Command()
  program
    .name('stockroute')
    .description('Execution bot for tokenized stocks, with a local sandbox of the service')
    // Options after a subcommand belong to it: `executions show 4 --config f` is show's --config, not
    // the `executions` list's (both have one). Needed here and on the commands with subcommands.
    .enablePositionalOptions()
    .version(packageVersion(), '-V, --version', 'print the version of stockroute')
  registerStartCommand(program)
  registerSandboxCommand(program)
  registerLocalChainsCommand(program)
  registerConfigCommand(program)
  registerDoctorCommand(program)
  registerChainsCommand(program)
  registerTokensCommand(program)
  registerMarketCommand(program)
  registerQuoteCommand(program)
  registerSwapCommand(program)
  registerKillSwitchCommands(program)
  registerExecutionsCommand(program)
  registerPositionsCommand(program)
  registerStrategiesCommand(program)
  registerEventsCommand(program)
  registerReportCommand(program)
  registerClusterCommand(program)
  for (const command of [program, ...commandsBelow(program)]) {
    // A mistyped flag gets "(Did you mean --ticker?)", on subcommands too, even when a required
    // option is missing as a result (commander would report only the missing one).
    command.showSuggestionAfterError(true)
    reportUnknownOptionsFirst(command)
    // Commander's own errors (it has printed them) reach `main`, whose exit codes are the CLI's.
    command.exitOverride()
  }
  // Every command's --config defaults the same way (./stockroute.json, else the demo's).
  program.hook('preAction', fillDefaultConfig)
  program.addHelpText('after', `\nExit codes (docs/cli.md):\n${exitCodesHelp().join('\n')}`)
  // helpCommand.test.ts requires an example for every command: missing ones are a test failure.
  addCommandExamples(program)
  return program
}

/**
 * Runs the command line. Every command ends here: an error that ends one is printed on stderr by
 * {@link formatCliError} (`error CODE: message`, its meta lines, `fix: remedy`), and the process
 * exits with the code of its kind (./exitCodes.ts, the table of docs/cli.md). Commander prints its
 * own errors (unknown option, missing value) and its help; only their exit code is set here.
 */
export async function main(argv: readonly string[]): Promise<void> {
  try {
    await buildProgram().parseAsync([...argv])
  } catch (error) {
    const category = exitCategoryOf(error)
    const printedByCommander = error instanceof Error && error.name === 'CommanderError'
    if (!printedByCommander) process.stderr.write(`${formatCliError(error)}\n`)
    process.exitCode = exitCodes[category]
  }
}

/** The command line's commands by name (`start`, `swap`, …): bin/stockroute.js keeps a code cache for each, none for a mistyped one. */
export function commandNames(): string[] {
  return buildProgram().commands.map((command) => command.name())
}
