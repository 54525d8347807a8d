import type { RepositoryContext } from './context.js'

/** What one strategy did, as the ledger's executions tell it (every run, kept across restarts). */
export type StrategyActivity = {
  strategy: string
  /** Executions its intents created, in any state (rejected by a risk limit too). */
  submitted: number
  /** Those that are confirmed now. */
  confirmed: number
  /** When its last confirmed execution was confirmed (Unix ms), or null when none was. */
  lastTradeAtMs: number | null
}

type ActivityRow = {
  strategy: string
  submitted: number
  confirmed: number
  last_trade_at_ms: number | null
}

/**
 * Every strategy that ever submitted an intent, with its counts and last trade; a strategy that
 * never did is absent. A confirmed execution's `updated_at_ms` is when it moved to `confirmed`
 * (only transitions change it).
 *
 * @example
 * listStrategyActivity(context)()
 * // [{ strategy: 'dca-aapl', submitted: 3, confirmed: 2, lastTradeAtMs: 1748874718000 }]
 */
export function listStrategyActivity({ db }: RepositoryContext): () => StrategyActivity[] {
  const select = db.prepare<[], ActivityRow>(
    `SELECT strategy, COUNT(*) AS submitted,
       COALESCE(SUM(state = 'confirmed'), 0) AS confirmed,
       MAX(CASE WHEN state = 'confirmed' THEN updated_at_ms END) AS last_trade_at_ms
     FROM executions WHERE strategy IS NOT NULL
     GROUP BY strategy ORDER BY strategy`,
  )
  return () =>
    select.all().map((row) => ({
      strategy: row.strategy,
      submitted: row.submitted,
      confirmed: row.confirmed,
      lastTradeAtMs: row.last_trade_at_ms,
    }))
}
