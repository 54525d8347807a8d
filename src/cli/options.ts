import { type Command, InvalidArgumentError, type Option } from 'commander'
import { configHelp } from './defaultConfigPath.js'

/** Commander parser for a TCP port option. */
export function parsePort(text: string): number {
  if (!/^\d{1,5}$/.test(text) || Number(text) > 65_535) {
    throw new InvalidArgumentError('must be a port number from 0 to 65535')
  }
  return Number(text)
}

/** Commander parser for a positive whole number. */
export function parsePositiveInteger(text: string): number {
  if (!/^\d{1,9}$/.test(text) || Number(text) === 0)
    throw new InvalidArgumentError('must be a positive whole number')
  return Number(text)
}

/**
 * Adds `--config <file>` (the daemon or ledger to use; default stockroute.json) and `--json` to a
 * command that goes through the running daemon or reads the ledger when none runs.
 *
 * @example
 * withConfig(program.command('executions')).action((options: { config: string; json?: boolean }) => …)
 */
export function withConfig(command: Command): Command {
  return command
    .option('--config <file>', configHelp('the config whose daemon or ledger to use (no secrets needed)'))
    .option('--json', 'print the result as JSON on stdout')
}

/** The help of `--wide` on a command that prints a list (src/cli/formatTable.ts, formatFittedTable). */
export const wideOptionHelp = 'every column and value whole (by default the table fits 120 columns)'

/** Adds the options every command that talks to the service takes. */
export function withServiceOptions(command: Command): Command {
  return command
    .option(
      '--config <file>',
      configHelp('the config to use (secrets from the environment or the .env beside it)'),
    )
    .option('--json', 'print the result as JSON on stdout')
}

/** Commander parser for a chain id: a positive whole number. */
export function parseChainId(text: string): number {
  if (!/^\d{1,15}$/.test(text) || Number(text) === 0) {
    throw new InvalidArgumentError('must be a chain id: a positive whole number such as 31337')
  }
  return Number(text)
}

/** Commander parser for a ticker: not empty, no surrounding spaces. */
export function parseTicker(text: string): string {
  if (text.trim() === '' || text.trim() !== text) {
    throw new InvalidArgumentError('must be a ticker such as AAPL, AAPLs or 0700, without spaces')
  }
  return text
}

/** The parts of commander's Command this module relies on that its typings leave out. */
type CommandInternals = {
  missingMandatoryOptionValue(option: Option): void
  unknownOption(flag: string): void
}

/**
 * Makes `command` report an unknown option (with commander's "Did you mean …?") before a missing
 * required one. Commander checks required options first, so `quote --tiker AAPL` said only
 * "required option '--ticker <ticker>' not specified", hiding the typo that caused it.
 *
 * @example
 * reportUnknownOptionsFirst(program.command('quote').requiredOption('--ticker <ticker>'))
 */
export function reportUnknownOptionsFirst(command: Command): void {
  const internals = command as unknown as CommandInternals
  const reportMissing = internals.missingMandatoryOptionValue.bind(command)
  const reportUnknown = internals.unknownOption.bind(command)
  // `--tiker=AAPL`: commander looks for a flag like the whole text, and suggests none.
  internals.unknownOption = (flag) => reportUnknown(flag.replace(/=.*$/s, ''))
  internals.missingMandatoryOptionValue = (option) => {
    // After parsing, `args` holds the operands, then everything from the first unknown option on.
    const known = (arg: string) => command.options.some((o) => o.long === arg || o.short === arg)
    const unknown = command.args.find(
      (arg) => arg.startsWith('-') && arg !== '-' && arg !== '--' && !known(arg),
    )
    if (unknown !== undefined) internals.unknownOption(unknown)
    else reportMissing(option)
  }
}
