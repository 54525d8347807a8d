import type { Ledger } from '../store/openLedger.js'
import { type AnyStrategy, createTwapStrategy, type StrategyConfig } from '../strategy/index.js'

/**
 * The strategies with each TWAP of `startAt: "first-run"` anchored where it first ran: the time the
 * ledger recorded its first slice (so that a restart computes the same schedule), else now (it has
 * not run yet: its first slice is due at once). Other strategies are returned as they are.
 *
 * @example
 * run.parts.strategies = withTwapFirstRuns(strategies, config.daemon.strategies, ledger)
 */
export function withTwapFirstRuns(
  strategies: readonly AnyStrategy[],
  configs: readonly StrategyConfig[],
  ledger: Pick<Ledger, 'database'>,
  now: () => number = Date.now,
): AnyStrategy[] {
  const firstSlice = ledger.database.prepare<[string], { at: number | null }>(
    'SELECT min(created_at_ms) AS at FROM executions WHERE intent_id = ?',
  )
  return strategies.map((strategy, index) => {
    const config = configs[index]
    if (config?.kind !== 'twap' || config.startAt !== 'first-run') return strategy
    const firstRunMs = firstSlice.get(`twap:${config.id}:slice:1`)?.at ?? now()
    return createTwapStrategy(config, { firstRunMs })
  })
}
