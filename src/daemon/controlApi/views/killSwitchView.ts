import type { KillSwitchState } from '../../../store/risk.js'
import type { KillSwitchView } from '../contract.js'

/**
 * The kill switch as the control API shows it.
 *
 * @example
 * toKillSwitchView(ledger.risk.killSwitch()) // { halted: true, reason: 'operator: …', changedAt: '2025-06-02T…' }
 */
export function toKillSwitchView(state: KillSwitchState): KillSwitchView {
  return {
    halted: state.halted,
    reason: state.reason,
    changedAt: state.changedAtMs === null ? null : new Date(state.changedAtMs).toISOString(),
  }
}
