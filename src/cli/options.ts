import { type Command, InvalidArgumentError } from 'commander'

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
    .option(
      '--config <file>',
      'stockroute.json whose daemon or ledger to use (no secrets needed)',
      'stockroute.json',
    )
    .option('--json', 'print the result as JSON on stdout')
}
