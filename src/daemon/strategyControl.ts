import type { Ledger } from '../store/openLedger.js'
import { type AnyStrategy, nextCronFireTime } from '../strategy/index.js'
import type { StrategyStatus } from './controlApi/controlPlane.js'

/** What one evaluation of a strategy did (kept for `GET /v1/strategies`). */
export type StrategyRun = NonNullable<StrategyStatus['lastRun']>

/** The configured strategies' switches and last runs: the runner asks it, the control API changes it. */
export type StrategyControl = {
  isEnabled(id: string): boolean
  recordRun(id: string, run: StrategyRun): void
  list(): StrategyStatus[]
  /** Undefined for an id the config does not have. */
  setEnabled(id: string, enabled: boolean, reason: string): StrategyStatus | undefined
}

/**
 * Strategies run unless an operator switched one off; switches are kept in the ledger, so a
 * strategy turned off stays off across restarts until turned on again. Last runs live in memory
 * (this daemon's life).
 *
 * @example
 * const control = createStrategyControl({ strategies, ledger })
 * control.setEnabled('dca-aapl', false, 'operator: earnings week')
 * control.isEnabled('dca-aapl') // false
 */
export function createStrategyControl(parameters: {
  strategies: readonly AnyStrategy[]
  ledger: Pick<Ledger, 'strategySwitches'>
  now?: (() => number) | undefined
}): StrategyControl {
  const { strategies, ledger, now = Date.now } = parameters
  const switches = new Map(ledger.strategySwitches.list().map((entry) => [entry.strategy, entry]))
  const lastRuns = new Map<string, StrategyRun>()
  const statusOf = (strategy: AnyStrategy): StrategyStatus => {
    const switched = switches.get(strategy.id)
    const enabled = switched?.enabled ?? true
    return {
      id: strategy.id,
      kind: strategy.kind,
      enabled,
      switched: switched ? { enabled: switched.enabled, reason: switched.reason, atMs: switched.atMs } : null,
      lastRun: lastRuns.get(strategy.id) ?? null,
      nextRunAtMs:
        enabled && strategy.kind === 'schedule'
          ? nextCronFireTime({ expression: strategy.cron, timezone: strategy.timezone, afterMs: now() })
          : null,
    }
  }
  return {
    isEnabled: (id) => switches.get(id)?.enabled ?? true,
    recordRun: (id, run) => {
      lastRuns.set(id, run)
    },
    list: () => strategies.map(statusOf),
    setEnabled(id, enabled, reason) {
      const strategy = strategies.find((candidate) => candidate.id === id)
      if (!strategy) return undefined
      switches.set(id, ledger.strategySwitches.set(id, enabled, reason))
      return statusOf(strategy)
    },
  }
}
