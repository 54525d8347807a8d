import { printable } from '@stockroute/client/domain/printable.js'
import { type EntryHaltView, killSwitchViewSchema } from '../../daemon/controlApi/contract.js'
import { toEntryHaltView } from '../../daemon/controlApi/views/killSwitchView.js'
import { type KillSwitchState, migrationProgressPrinter, openLedger } from '../../store/index.js'
import type { DaemonClient } from '../daemon/createDaemonClient.js'
import { announcePath, findDaemon } from '../daemon/findDaemon.js'
import { readLedgerTarget } from '../daemon/readLedgerTarget.js'
import { timeMsOf } from '../daemon/timeMsOf.js'
import { describeEntryHalt } from '../describeEntryHalt.js'
import { withInterrupt } from '../interrupt.js'
import { printResult } from '../printResult.js'

/** The kill switch after a command, however it was changed. */
type SwitchOutcome = {
  state: { halted: boolean; reason: string | null; changedAtMs: number | null }
  changed: boolean
  /** `daemon` (its control API) or `ledger` (written directly). */
  via: 'daemon' | 'ledger'
  daemonPid: number | undefined
  /** The reasons of the entry halts (risk limits reached: docs/configuration.md) this command released. */
  releasedEntryHalts: string[]
  /** The entry halts still in force after it: a halt keeps them, a resume clears them. */
  entryHalts: EntryHaltView[]
}

/** The reasons of the entry halts in `before` that `after` no longer has. */
const releasedOf = (before: readonly { reason: string }[], after: readonly { reason: string }[]): string[] =>
  before.filter((halt) => !after.some((left) => left.reason === halt.reason)).map((halt) => halt.reason)

/**
 * What `stockroute halt` and `stockroute resume` run (their options: ./killSwitchCommand.ts): the
 * kill switch latched or released, through the daemon that owns the ledger or in the ledger itself.
 */
export async function switchKill(
  options: { config: string; json?: boolean },
  action: 'halt' | 'resume',
  reason: string,
) {
  const target = readLedgerTarget(options.config)
  const found = findDaemon(target)
  announcePath(found)
  const change = (ledger: ReturnType<typeof openLedger>): KillSwitchState =>
    action === 'halt' ? ledger.risk.halt(reason) : ledger.risk.resume(reason)
  const outcome =
    found.kind === 'daemon'
      ? await withInterrupt((signal) => switchThroughDaemon(found.client, action, reason, signal))
      : switchInLedger(target.ledgerPath, change)
  const { state, releasedEntryHalts, entryHalts } = outcome
  const changed = outcome.changed || releasedEntryHalts.length > 0
  const changedAt = state.changedAtMs === null ? null : new Date(state.changedAtMs).toISOString()
  printResult(
    options.json,
    {
      ...state,
      changed,
      changedAt,
      ledgerPath: target.ledgerPath,
      releasedEntryHalts,
      entryHalts,
      via: outcome.via,
      ...(outcome.daemonPid === undefined ? {} : { daemonPid: outcome.daemonPid }),
    },
    () =>
      [
        state.halted
          ? `${changed ? 'halted' : 'already halted'}: nothing is signed until \`stockroute resume\` (reason: ${printable(state.reason)}, since ${changedAt})`
          : `${changed ? 'resumed' : 'not halted'}: trading may sign${state.reason ? ` (reason: ${printable(state.reason)}, since ${changedAt})` : ''}`,
        ...releasedEntryHalts.map((reason) => `  released the entry halt: ${printable(reason)}`),
        // The risk limits' own halts: buys stay refused by them until a resume, whatever the switch.
        ...entryHalts.map(
          (halt) => `  entry halt in force (buys refused, sells run): ${printable(describeEntryHalt(halt))}`,
        ),
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
    const entryHalts = ledger.risk.entryHalts()
    const state = change(ledger)
    const left = ledger.risk.entryHalts()
    // Halting while halted keeps the first reason and time.
    return {
      state,
      changed: wasHalted !== state.halted,
      via: 'ledger',
      daemonPid: undefined,
      releasedEntryHalts: releasedOf(entryHalts, left),
      entryHalts: left.map(toEntryHaltView),
    }
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
    releasedEntryHalts: releasedOf(before.entryHalts, after.entryHalts),
    entryHalts: after.entryHalts,
  }
}
