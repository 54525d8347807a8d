import type { RepositoryContext } from './context.js'

/** An operator's switch of a strategy, kept across restarts (the config decides where there is none). */
export type StrategySwitch = { strategy: string; enabled: boolean; reason: string; atMs: number }

/** Strategies switched on or off through the control API. */
export type StrategySwitchesRepository = {
  /** Every switch, by strategy id. */
  list(): StrategySwitch[]
  /**
   * Switches a strategy on or off; the last switch wins.
   *
   * @example
   * ledger.strategySwitches.set('dca-aapl', false, 'operator: earnings week')
   */
  set(strategy: string, enabled: boolean, reason: string): StrategySwitch
}

type SwitchRow = { strategy: string; enabled: number; reason: string; changed_at_ms: number }

const toSwitch = (row: SwitchRow): StrategySwitch => ({
  strategy: row.strategy,
  enabled: row.enabled === 1,
  reason: row.reason,
  atMs: row.changed_at_ms,
})

export function createStrategySwitchesRepository({ db, now }: RepositoryContext): StrategySwitchesRepository {
  const selectAll = db.prepare<[], SwitchRow>('SELECT * FROM strategy_switches ORDER BY strategy')
  const upsert = db.prepare<[string, number, string, number], SwitchRow>(
    `INSERT INTO strategy_switches (strategy, enabled, reason, changed_at_ms) VALUES (?, ?, ?, ?)
     ON CONFLICT (strategy) DO UPDATE SET enabled = excluded.enabled, reason = excluded.reason,
       changed_at_ms = excluded.changed_at_ms
     RETURNING *`,
  )
  return {
    list: () => selectAll.all().map(toSwitch),
    set(strategy, enabled, reason) {
      const row = upsert.get(strategy, enabled ? 1 : 0, reason, now())
      if (!row) throw new Error('strategy_switches: the upsert returned no row')
      return toSwitch(row)
    },
  }
}
