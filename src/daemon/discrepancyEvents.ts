import type { Ledger } from '../store/openLedger.js'
import type { PositionDiscrepancy } from './jobs/index.js'

/**
 * Turns each reconciliation's discrepancies into `discrepancy` events of the ledger, once per new
 * finding: a difference that persists run after run is told once, again only when its amounts
 * change. One with executions in flight on its ticker is left out (likely a trade the next run no
 * longer sees). Remembered in memory: after a restart, a standing discrepancy is told once more.
 *
 * @example
 * const record = discrepancyEvents(ledger)
 * record(report.discrepancies) // 1 event for a new difference, 0 the next time
 */
export function discrepancyEvents(
  ledger: Pick<Ledger, 'events'>,
): (found: readonly PositionDiscrepancy[]) => number {
  let told = new Map<string, string>()
  return (found) => {
    const now = new Map<string, string>()
    let appended = 0
    for (const discrepancy of found) {
      if (discrepancy.unfinishedExecutions > 0) continue
      const key = `${discrepancy.chainId}:${discrepancy.tokenAddress}`
      const fingerprint = `${discrepancy.kind}:${discrepancy.ledger}:${discrepancy.chain}:${discrepancy.service}`
      now.set(key, fingerprint)
      if (told.get(key) === fingerprint) continue
      ledger.events.append('discrepancy', {
        chainId: discrepancy.chainId,
        data: {
          ticker: discrepancy.ticker,
          tokenAddress: discrepancy.tokenAddress,
          kind: discrepancy.kind,
          ledger: discrepancy.ledger.toString(),
          chain: discrepancy.chain.toString(),
          service: discrepancy.service?.toString() ?? null,
          blockNumber: discrepancy.blockNumber.toString(),
        },
      })
      appended += 1
    }
    told = now
    return appended
  }
}
