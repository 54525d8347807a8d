import type { EntryHalt } from '../../../store/entryHalts.js'
import type { KillSwitchState } from '../../../store/risk.js'
import type { EntryHaltView, KillSwitchView } from '../contract.js'

/**
 * The kill switch as the control API shows it, with the entry halts the risk limits latched
 * (docs/configuration.md): both are cleared by a resume.
 *
 * @example
 * toKillSwitchView(ledger.risk.killSwitch(), ledger.risk.entryHalts()) // { halted: true, reason: 'operator: …', changedAt: '2025-06-02T…', entryHalts: [] }
 */
export function toKillSwitchView(
  state: KillSwitchState,
  entryHalts: readonly EntryHalt[] = [],
): KillSwitchView {
  return {
    halted: state.halted,
    reason: state.reason,
    changedAt: state.changedAtMs === null ? null : new Date(state.changedAtMs).toISOString(),
    entryHalts: entryHalts.map(toEntryHaltView),
  }
}

/**
 * An entry halt as the control API and /health show it.
 *
 * @example
 * toEntryHaltView(halt) // { chainId: null, rule: 'maxDrawdownPct', reason: 'drawdown 12.4% …', figures: {…}, since: '2026-…' }
 */
export function toEntryHaltView(halt: EntryHalt): EntryHaltView {
  return {
    chainId: halt.chainId,
    rule: halt.rule,
    reason: halt.reason,
    figures: halt.figures,
    since: new Date(halt.atMs).toISOString(),
  }
}
