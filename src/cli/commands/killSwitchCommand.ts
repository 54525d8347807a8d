import { type Command, InvalidArgumentError } from 'commander'
import { configHelp } from '../defaultConfigPath.js'

type KillSwitchOptions = { config: string; json?: boolean; reason?: string }

/** The reason `stockroute halt` records when none is given. */
export const defaultHaltReason = 'operator: stockroute halt'

/**
 * `stockroute halt [--reason TEXT]` and `stockroute resume [--reason TEXT]`: latch or release the
 * kill switch of the configuration's ledger. While a daemon owns the ledger, through its control
 * API (`POST /v1/kill-switch/halt|resume`); otherwise in the ledger directly (created if missing).
 * Which path was taken is printed on stderr. While halted, the engine signs nothing, in this process
 * or any other using the ledger, across restarts. Neither needs the secrets. The ledger and the
 * daemon's client are loaded only when one runs (./killSwitchAction.ts).
 *
 * @example
 * registerKillSwitchCommands(program)
 * // stockroute halt --reason "unexpected fills" --config ./sbx/stockroute.json
 */
export function registerKillSwitchCommands(program: Command) {
  withLedgerOptions(
    program
      .command('halt')
      .description('latch the kill switch: nothing is signed until `stockroute resume` (survives restarts)'),
  )
    .option('--reason <text>', `why trading stops (default: "${defaultHaltReason}")`, parseReason)
    .action(async (options: KillSwitchOptions) => {
      const { switchKill } = await import('./killSwitchAction.js')
      await switchKill(options, 'halt', options.reason ?? defaultHaltReason)
    })
  withLedgerOptions(
    program
      .command('resume')
      .description(
        'release the kill switch and the entry halts of the risk limits: trading may sign and buy again',
      ),
  )
    .option('--reason <text>', 'why trading resumes (default: "operator: stockroute resume")', parseReason)
    .action(async (options: KillSwitchOptions) => {
      const { switchKill } = await import('./killSwitchAction.js')
      await switchKill(options, 'resume', options.reason ?? 'operator: stockroute resume')
    })
}

function withLedgerOptions(command: Command): Command {
  return command
    .option('--config <file>', configHelp('the config whose ledger to use (no secrets needed)'))
    .option('--json', 'print the kill switch as JSON on stdout')
}

function parseReason(text: string): string {
  if (text.trim() === '') throw new InvalidArgumentError('must say why, e.g. "operator: unexpected fills"')
  if (text.length > 500) throw new InvalidArgumentError('must be at most 500 characters')
  return text
}
