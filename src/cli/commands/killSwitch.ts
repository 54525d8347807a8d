import { type Command, InvalidArgumentError } from 'commander'
import { readConfigFile } from '../../daemon/config.js'
import { type KillSwitchState, openLedger } from '../../store/index.js'
import { printResult } from '../serviceClient.js'

type KillSwitchOptions = { config: string; json?: boolean; reason?: string }

/** The reason `stockroute halt` records when none is given. */
export const defaultHaltReason = 'operator: stockroute halt'

/**
 * `stockroute halt [--reason TEXT]` and `stockroute resume [--reason TEXT]`: latch or release the
 * kill switch in the configuration's ledger (created if missing). While halted, the engine signs
 * nothing, in this process or any other using the ledger, across restarts. Neither needs the
 * secrets: they touch the ledger only.
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
    .action((options: KillSwitchOptions) => {
      const reason = options.reason ?? defaultHaltReason
      switchKill(options, (ledger) => ledger.risk.halt(reason))
    })
  withLedgerOptions(program.command('resume').description('release the kill switch: trading may sign again'))
    .option('--reason <text>', 'why trading resumes (default: "operator: stockroute resume")', parseReason)
    .action((options: KillSwitchOptions) => {
      const reason = options.reason ?? 'operator: stockroute resume'
      switchKill(options, (ledger) => ledger.risk.resume(reason))
    })
}

function withLedgerOptions(command: Command): Command {
  return command
    .option('--config <file>', 'stockroute.json whose ledger to use (no secrets needed)', 'stockroute.json')
    .option('--json', 'print the kill switch as JSON on stdout')
}

function switchKill(
  options: KillSwitchOptions,
  change: (ledger: ReturnType<typeof openLedger>) => KillSwitchState,
) {
  const config = readConfigFile(options.config)
  // No claim on the ledger (owner: false): the kill switch is one atomic single-row write, safe beside
  // a running daemon, and an operator must be able to halt a daemon that owns the ledger.
  const ledger = openLedger({ path: config.ledgerPath, owner: false })
  let state: KillSwitchState
  let wasHalted: boolean
  try {
    wasHalted = ledger.risk.isHalted()
    state = change(ledger)
  } finally {
    ledger.close()
  }
  const changedAt = state.changedAtMs === null ? null : new Date(state.changedAtMs).toISOString()
  // Halting while halted keeps the first reason and time.
  const changed = wasHalted !== state.halted
  printResult(options.json, { ...state, changed, changedAt, ledgerPath: config.ledgerPath }, () =>
    [
      state.halted
        ? `${changed ? 'halted' : 'already halted'}: nothing is signed until \`stockroute resume\` (reason: ${state.reason}, since ${changedAt})`
        : `${changed ? 'resumed' : 'not halted'}: trading may sign${state.reason ? ` (reason: ${state.reason}, since ${changedAt})` : ''}`,
      `  ledger ${config.ledgerPath}`,
    ].join('\n'),
  )
}

function parseReason(text: string): string {
  if (text.trim() === '') throw new InvalidArgumentError('must say why, e.g. "operator: unexpected fills"')
  if (text.length > 500) throw new InvalidArgumentError('must be at most 500 characters')
  return text
}
