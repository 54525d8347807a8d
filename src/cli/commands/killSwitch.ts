import { type Command, InvalidArgumentError } from 'commander'
import { killSwitchViewSchema } from '../../daemon/controlApi/contract.js'
import { type KillSwitchState, migrationProgressPrinter, openLedger } from '../../store/index.js'
import type { DaemonClient } from '../daemon/createDaemonClient.js'
import { announcePath, findDaemon } from '../daemon/findDaemon.js'
import { readLedgerTarget } from '../daemon/readLedgerTarget.js'
import { timeMsOf } from '../daemon/timeMsOf.js'
import { withInterrupt } from '../interrupt.js'
import { printResult } from '../serviceClient.js'

type KillSwitchOptions = { config: string; json?: boolean; reason?: string }

/** The reason `stockroute halt` records when none is given. */
export const defaultHaltReason = 'operator: stockroute halt'

/**
 * `stockroute halt [--reason TEXT]` and `stockroute resume [--reason TEXT]`: latch or release the
 * kill switch of the configuration's ledger. While a daemon owns the ledger, through its control
 * API (`POST /v1/kill-switch/halt|resume`); otherwise in the ledger directly (created if missing).
 * Which path was taken is printed on stderr. While halted, the engine signs nothing, in this process
 * or any other using the ledger, across restarts. Neither needs the secrets.
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
      const reason = options.reason ?? defaultHaltReason
      await switchKill(options, 'halt', reason, (ledger) => ledger.risk.halt(reason))
    })
  withLedgerOptions(program.command('resume').description('release the kill switch: trading may sign again'))
    .option('--reason <text>', 'why trading resumes (default: "operator: stockroute resume")', parseReason)
    .action(async (options: KillSwitchOptions) => {
      const reason = options.reason ?? 'operator: stockroute resume'
      await switchKill(options, 'resume', reason, (ledger) => ledger.risk.resume(reason))
    })
}

function withLedgerOptions(command: Command): Command {
  return command
    .option('--config <file>', 'stockroute.json whose ledger to use (no secrets needed)', 'stockroute.json')
    .option('--json', 'print the kill switch as JSON on stdout')
}

/** The kill switch after a command, however it was changed. */
type SwitchOutcome = {
  state: { halted: boolean; reason: string | null; changedAtMs: number | null }
  changed: boolean
  /** `daemon` (its control API) or `ledger` (written directly). */
  via: 'daemon' | 'ledger'
  daemonPid: number | undefined
}

async function switchKill(
  options: KillSwitchOptions,
  action: 'halt' | 'resume',
  reason: string,
  change: (ledger: ReturnType<typeof openLedger>) => KillSwitchState,
) {
  const target = readLedgerTarget(options.config)
  const found = findDaemon(target)
  announcePath(found)
  const outcome =
    found.kind === 'daemon'
      ? await withInterrupt((signal) => switchThroughDaemon(found.client, action, reason, signal))
      : switchInLedger(target.ledgerPath, change)
  const { state, changed } = outcome
  const changedAt = state.changedAtMs === null ? null : new Date(state.changedAtMs).toISOString()
  printResult(
    options.json,
    {
      ...state,
      changed,
      changedAt,
      ledgerPath: target.ledgerPath,
      via: outcome.via,
      ...(outcome.daemonPid === undefined ? {} : { daemonPid: outcome.daemonPid }),
    },
    () =>
      [
        state.halted
          ? `${changed ? 'halted' : 'already halted'}: nothing is signed until \`stockroute resume\` (reason: ${state.reason}, since ${changedAt})`
          : `${changed ? 'resumed' : 'not halted'}: trading may sign${state.reason ? ` (reason: ${state.reason}, since ${changedAt})` : ''}`,
        `  ledger ${target.ledgerPath}`,
      ].join('\n'),
  )
}

/** The kill switch changed in the ledger itself (no daemon runs). */
function switchInLedger(
  ledgerPath: string,
  change: (ledger: ReturnType<typeof openLedger>) => KillSwitchState,
): SwitchOutcome {
  // No claim on the ledger (owner: false): the kill switch is one atomic single-row write, safe beside
  // a running owner (a daemon without a control API, or one starting), and an operator must always
  // be able to halt.
  const ledger = openLedger({
    path: ledgerPath,
    owner: false,
    onMigrationProgress: migrationProgressPrinter((line) => process.stderr.write(`${line}\n`)),
  })
  try {
    const wasHalted = ledger.risk.isHalted()
    const state = change(ledger)
    // Halting while halted keeps the first reason and time.
    return { state, changed: wasHalted !== state.halted, via: 'ledger', daemonPid: undefined }
  } finally {
    ledger.close()
  }
}

/** The kill switch changed through the daemon's control API. */
async function switchThroughDaemon(
  client: DaemonClient,
  action: 'halt' | 'resume',
  reason: string,
  signal: AbortSignal,
): Promise<SwitchOutcome> {
  const before = await client.request('GET', '/v1/kill-switch', { schema: killSwitchViewSchema, signal })
  const after = await client.request('POST', `/v1/kill-switch/${action}`, {
    body: { reason },
    schema: killSwitchViewSchema,
    signal,
  })
  return {
    state: { halted: after.halted, reason: after.reason, changedAtMs: timeMsOf(after.changedAt) },
    changed: before.halted !== after.halted,
    via: 'daemon',
    daemonPid: client.pid,
  }
}

function parseReason(text: string): string {
  if (text.trim() === '') throw new InvalidArgumentError('must say why, e.g. "operator: unexpected fills"')
  if (text.length > 500) throw new InvalidArgumentError('must be at most 500 characters')
  return text
}
