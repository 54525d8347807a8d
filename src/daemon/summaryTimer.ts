import { plural } from '@stockroute/client/domain/plural.js'
import type { Ledger } from '../store/index.js'
import type { ActivityPrinter } from './activity.js'
import type { DaemonStatus } from './healthRoutes.js'

/**
 * Prints the daemon's summary line every `intervalMs`: executions ended, in flight, how fresh the
 * prices are and what the last reconciliation found. Unref'd: it never keeps the process alive.
 * Silent once the daemon is stopping: the stop prints the last summary itself, and a tick that fell
 * between the signal and this timer's clearing printed a second one.
 *
 * @example
 * const timer = startSummaryTimer({ status, ledger, printer, write, intervalMs: 10_000 })
 * clearInterval(timer)
 */
export function startSummaryTimer(parameters: {
  status: Pick<DaemonStatus, 'state' | 'lastTick' | 'lastReconciliation'>
  ledger: Pick<Ledger, 'executions'>
  printer: Pick<ActivityPrinter, 'summary'>
  write: (line: string) => void
  intervalMs: number
}): NodeJS.Timeout {
  const { status, ledger, printer, write } = parameters
  const timer = setInterval(() => {
    if (status.state === 'stopping') return
    const tickNote = status.lastTick
      ? `prices ${status.lastTick.prices.fresh}/${status.lastTick.prices.total} fresh`
      : 'no tick yet'
    const open = ledger.executions.listUnfinishedExecutions().length
    const discrepancies = status.lastReconciliation
      ? plural(status.lastReconciliation.discrepancies, 'discrepancy', 'discrepancies')
      : 'not reconciled yet'
    write(printer.summary([`${open} in flight`, tickNote, discrepancies]))
  }, parameters.intervalMs)
  timer.unref()
  return timer
}
