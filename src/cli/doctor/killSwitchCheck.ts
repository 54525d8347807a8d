import { existsSync } from 'node:fs'
import { plural } from '@stockroute/client/domain/plural.js'
import { type EntryHalt, type KillSwitchState, openLedger } from '../../store/index.js'
import { describeEntryHalt } from '../describeEntryHalt.js'
import { type DoctorCheck, reasonOf } from './types.js'

/**
 * The `kill-switch` check: whether the configuration's ledger has its kill switch latched
 * (`stockroute halt`, or the daemon after a fault). While halted nothing is signed, so doctor fails
 * it, naming the ledger, since when and why, and how to resume. The entry halts the risk limits
 * latched (buys refused, sells still run; docs/configuration.md) are a warning, each named with its
 * scope, reason and time: `resume` clears them too. The ledger is opened read-only and never
 * created: no ledger yet means nothing was ever halted.
 *
 * @example
 * const check = checkKillSwitch({ ledgerPath: config.ledgerPath, configPath: config.configPath })
 * check.status // 'fail' while halted
 */
export function checkKillSwitch(parameters: { ledgerPath: string; configPath: string }): DoctorCheck {
  const { ledgerPath, configPath } = parameters
  if (!existsSync(ledgerPath))
    return {
      name: 'kill-switch',
      status: 'ok',
      message: `no ledger yet at ${ledgerPath}: the kill switch is not halted`,
      details: { ledgerPath, halted: false, exists: false },
    }
  let state: KillSwitchState
  let entryHalts: EntryHalt[]
  try {
    const ledger = openLedger({ path: ledgerPath, readonly: true })
    try {
      state = ledger.risk.killSwitch()
      entryHalts = ledger.risk.entryHalts()
    } finally {
      ledger.close()
    }
  } catch (error) {
    return {
      name: 'kill-switch',
      status: 'warn',
      message: `the kill switch of ledger ${ledgerPath} could not be read: ${reasonOf(error)}; \`stockroute report summary --config ${configPath}\` shows it once the ledger opens`,
      details: { ledgerPath, error: reasonOf(error) },
    }
  }
  const since = state.changedAtMs === null ? null : new Date(state.changedAtMs).toISOString()
  const halts = entryHalts.map((halt) => ({
    chainId: halt.chainId,
    rule: halt.rule,
    reason: halt.reason,
    since: new Date(halt.atMs).toISOString(),
  }))
  const details = { ledgerPath, halted: state.halted, reason: state.reason, since, entryHalts: halts }
  const haltsText = halts.map(describeEntryHalt).join('; ')
  if (state.halted)
    return {
      name: 'kill-switch',
      status: 'fail',
      message: `the kill switch of ledger ${ledgerPath} is halted since ${since} (reason: ${state.reason}): nothing is signed${halts.length > 0 ? `, and buys stay refused by ${plural(halts.length, 'entry halt')} (${haltsText})` : ''}; once it is safe to trade, run \`stockroute resume --config ${configPath}\``,
      details,
    }
  if (halts.length > 0)
    return {
      name: 'kill-switch',
      status: 'warn',
      message: `the kill switch of ledger ${ledgerPath} is not halted, but buys are refused (sells still run) by ${plural(halts.length, 'entry halt')} of the risk limits: ${haltsText}; once it is safe to buy again, run \`stockroute resume --config ${configPath}\` (it clears them)`,
      details,
    }
  return {
    name: 'kill-switch',
    status: 'ok',
    message: `the kill switch of ledger ${ledgerPath} is not halted${state.reason ? ` (last change ${since}: ${state.reason})` : ''}`,
    details,
  }
}
