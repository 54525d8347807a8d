import type { Address } from 'viem'
import type { ServiceClient } from '../api/createServiceClient.js'
import type { Engine } from '../engine/createEngine.js'
import type { Ledger } from '../store/openLedger.js'
import type { DaemonSettings } from './daemonConfig.js'
import { discrepancyEvents } from './discrepancyEvents.js'
import type { DaemonStatus } from './healthRoutes.js'
import { createJobRunner } from './jobs/createJobRunner.js'
import { type JobChain, type JobLogger, reconcilePositions, syncCorporateActions } from './jobs/index.js'
import type { DaemonMetrics } from './metrics.js'
import { appendDailySummary, utcDayBefore } from './notifications/index.js'

/**
 * The daemon's cron jobs: token lists, corporate actions, reconciliation (fills from the settlement
 * logs, then positions against the chain and the service; new discrepancies become events), and
 * the daily summary event for notifications. Returns the runner; `stop()` waits for runs in progress.
 *
 * @example
 * const jobs = scheduleDaemonJobs({ settings, ledger, service, engine, chains, owner, logger, metrics, status, write, refreshTokens, signal })
 * await jobs.stop()
 */
export function scheduleDaemonJobs(parameters: {
  settings: DaemonSettings
  ledger: Ledger
  service: ServiceClient
  engine: Pick<Engine, 'syncSettlements'>
  chains: readonly JobChain[]
  owner: Address
  logger: JobLogger
  metrics: DaemonMetrics
  status: DaemonStatus
  write: (line: string) => void
  refreshTokens: () => Promise<unknown>
  signal: AbortSignal
}): ReturnType<typeof createJobRunner> {
  const { settings, ledger, service, engine, chains, owner, logger, metrics, status, write, signal } =
    parameters
  const jobs = createJobRunner(logger)
  jobs.schedule('token-refresh', settings.jobs.tokenRefresh, async () => {
    await parameters.refreshTokens()
  })
  jobs.schedule('corporate-actions', settings.jobs.corporateActions, async () => {
    const report = await syncCorporateActions({ ledger, service, chains, logger, signal })
    if (report.applied + report.income > 0)
      write(`corporate actions: ${report.applied} applied, ${report.income} dividends recorded as income`)
  })
  const recordDiscrepancies = discrepancyEvents(ledger)
  jobs.schedule('reconciliation', settings.jobs.reconciliation, async () => {
    // Fills first (the settlement logs since the checkpoint), then compare positions.
    const settlements = await engine.syncSettlements()
    if (settlements.unattributedFills > 0)
      logger.warn(settlements, "settlements of this ledger's wallets that no execution of the ledger holds")
    const report = await reconcilePositions({ ledger, service, chains, owner, logger })
    metrics.recordReconciliation(report.counts.total)
    recordDiscrepancies(report.discrepancies)
    status.lastReconciliation = {
      atMs: Date.now(),
      discrepancies: report.counts.total,
      checked: report.checked,
    }
  })
  // Appended whether or not a sink wants it: the event stream is the record, notifications read it.
  jobs.schedule(
    'daily-summary',
    settings.notifications.dailySummaryCron,
    async () => {
      appendDailySummary(ledger, utcDayBefore(Date.now()))
    },
    { timezone: 'UTC' },
  )
  return jobs
}
