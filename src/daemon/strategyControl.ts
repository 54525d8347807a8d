import type { FxRates } from '@stockroute/client/domain/quotePrice.js'
import type { StrategyActivity } from '../store/index.js'
import type { Ledger } from '../store/openLedger.js'
import { type AnyStrategy, type ListingView, nextCronFireTime } from '../strategy/index.js'
import type { StrategyStatus } from './controlApi/controlPlane.js'
import { protectiveStatusOf } from './protectiveStatus.js'
import { twapStatusOf } from './twapStatus.js'

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
 * (this daemon's life); what each traded is read from the ledger's executions at each listing.
 *
 * @example
 * const control = createStrategyControl({ strategies, ledger })
 * control.setEnabled('dca-aapl', false, 'operator: earnings week')
 * control.isEnabled('dca-aapl') // false
 */
export function createStrategyControl(parameters: {
  strategies: readonly AnyStrategy[]
  ledger: Pick<Ledger, 'strategySwitches' | 'executions' | 'database' | 'protectiveState'>
  now?: (() => number) | undefined
  /** The chains' token lists as strategies see them (a TWAP's remainder status); undefined: not known. */
  listings?: (() => readonly ListingView[] | undefined) | undefined
  /** The engine's FX rates (a TWAP's average price in the market's currency when its slices recorded none). */
  fxRates?: FxRates | undefined
}): StrategyControl {
  const { strategies, ledger, now = Date.now, listings, fxRates } = parameters
  const switches = new Map(ledger.strategySwitches.list().map((entry) => [entry.strategy, entry]))
  const lastRuns = new Map<string, StrategyRun>()
  const activity = () =>
    new Map(ledger.executions.listStrategyActivity().map((entry) => [entry.strategy, entry]))
  const statusOf = (strategy: AnyStrategy, traded: ReadonlyMap<string, StrategyActivity>): StrategyStatus => {
    const switched = switches.get(strategy.id)
    const enabled = switched?.enabled ?? true
    return {
      id: strategy.id,
      kind: strategy.kind,
      enabled,
      switched: switched ? { enabled: switched.enabled, reason: switched.reason, atMs: switched.atMs } : null,
      lastRun: lastRuns.get(strategy.id) ?? null,
      trades: tradesOf(traded.get(strategy.id)),
      nextRunAtMs:
        enabled && strategy.kind === 'schedule'
          ? nextCronFireTime({ expression: strategy.cron, timezone: strategy.timezone, afterMs: now() })
          : null,
      ...(strategy.kind === 'twap'
        ? { progress: twapStatusOf(strategy, ledger, listings?.(), now(), fxRates) }
        : {}),
      ...(strategy.kind === 'protect' ? { exits: protectiveStatusOf(strategy, ledger) } : {}),
    }
  }
  return {
    isEnabled: (id) => switches.get(id)?.enabled ?? true,
    recordRun: (id, run) => {
      lastRuns.set(id, run)
    },
    list: () => {
      const traded = activity()
      return strategies.map((strategy) => statusOf(strategy, traded))
    },
    setEnabled(id, enabled, reason) {
      const strategy = strategies.find((candidate) => candidate.id === id)
      if (!strategy) return undefined
      switches.set(id, ledger.strategySwitches.set(id, enabled, reason))
      return statusOf(strategy, activity())
    },
  }
}

/**
 * A strategy's trades as the control plane shows them: zeros and never for one without executions.
 *
 * @example
 * tradesOf(undefined) // { submitted: 0, confirmed: 0, lastAtMs: null }
 */
export function tradesOf(activity: StrategyActivity | undefined): StrategyStatus['trades'] {
  return {
    submitted: activity?.submitted ?? 0,
    confirmed: activity?.confirmed ?? 0,
    lastAtMs: activity?.lastTradeAtMs ?? null,
  }
}
