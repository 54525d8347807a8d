import type { ReportContext } from '../../../report/types.js'
import type { Ledger } from '../../../store/openLedger.js'

/**
 * What the dashboard's data routes read (reports, series, discrepancies): the daemon's ledger as a
 * report reads it, and the last reconciliation's verdict, which tells whether a discrepancy still
 * stands.
 */
export type DashboardData = {
  ledger: Pick<Ledger, 'database' | 'events' | 'equityMarks' | 'chainAssets'>
  now: () => number
  fxRates?: ReportContext['fxRates'] | undefined
  /** The daemon's fresh market prices (its price cache), for unrealized PnL at the market. */
  marketPrices?: (() => ReportContext['marketPrices']) | undefined
  /** The last reconciliation run, undefined before the first. */
  lastReconciliation: () => { atMs: number; discrepancies: number } | undefined
}
