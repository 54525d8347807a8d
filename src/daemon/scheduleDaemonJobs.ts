import type { ServiceClient } from '@stockroute/client/api/createServiceClient.js'
import type { Address } from 'viem'
import type { DaemonSettings } from '../config/daemonConfig.js'
import type { Engine } from '../engine/index.js'
import type { Ledger } from '../store/openLedger.js'
import { discrepancyEvents } from './discrepancyEvents.js'
import type { DaemonStatus } from './healthRoutes.js'
import { createJobRunner } from './jobs/createJobRunner.js'
import { type JobChain, type JobLogger, reconcilePositions, syncCorporateActions } from './jobs/index.js'
import type { DaemonMetrics } from './metrics.js'
import { appendDailySummary, utcDayBefore } from './notifications/index.js'

/**
 * The daemon's cron jobs: token lists, corporate actions, reconciliation (fills from the settlement
 * logs, then positions against the chain and the service; new discrepancies become events), and
 * the daily summary event for notifications. Returns the runner: `stop()` aborts the runs in progress
 * and waits for them; `activities()` says what they are doing (e.g. 'reconciliation of chain 31337').
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
  jobs.schedule('token-refresh', settings.jobs.tokenRefresh, async (run) => {
    run.doing('the token list refresh')
    await parameters.refreshTokens()
  })
  jobs.schedule('corporate-actions', settings.jobs.corporateActions, async (run) => {
    run.doing('the corporate-actions job')
    const report = await syncCorporateActions({
      ledger,
      service,
      chains,
      logger,
      signal: AbortSignal.any([signal, run.signal]),
    })
    if (report.applied + report.income > 0)
      write(`corporate actions: ${report.applied} applied, ${report.income} dividends recorded as income`)
  })
  const recordDiscrepancies = discrepancyEvents(ledger)
  jobs.schedule('reconciliation', settings.jobs.reconciliation, async (run) => {
    run.doing('reconciliation: the settlement logs')
    // Fills first (the settlement logs since the checkpoint), then compare positions. The engine's
    // sync takes no signal: it writes fills, so it is let finish, and nothing after it starts.
    const settlements = await engine.syncSettlements()
    if (settlements.unattributedFills > 0)
      logger.warn(settlements, "settlements of this ledger's wallets that no execution of the ledger holds")
    const report = await reconcilePositions({
      ledger,
      service,
      chains,
      owner,
      logger,
      signal: AbortSignal.any([signal, run.signal]),
      onChain: (chainId) => run.doing(`reconciliation of chain ${chainId}`),
    })
    // A run cut short by the stop compared only part of the positions: not a result to publish.
    if (report.aborted) return
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
