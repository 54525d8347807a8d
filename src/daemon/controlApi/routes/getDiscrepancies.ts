import { seriesQuerySchema } from '../contract.js'
import { readQuery } from '../http/readQuery.js'
import type { ControlReply, ControlRequest } from '../types.js'
import type { DashboardData } from './dashboardData.js'

const querySchema = seriesQuerySchema('/v1/discrepancies')

type AdjustmentRow = { kind: string; reason: string; recorded_at_ms: number }

const textOf = (value: unknown) => (value === undefined || value === null ? null : String(value))
const iso = (ms: number) => new Date(ms).toISOString()

/**
 * `GET /v1/discrepancies?chainId&since&limit`: the `discrepancy` events reconciliation wrote
 * (src/daemon/discrepancyEvents.ts), newest first, each with what became of it: `superseded` by a
 * later finding on the same token (its amounts changed), `adjusted` by a position adjustment
 * recorded after it (a split, delisting or transfer), `cleared` when the last reconciliation, run
 * after it, found no discrepancy at all, else `open`.
 *
 * @example
 * const route = { method: 'GET', path: '/v1/discrepancies', handle: getDiscrepancies(data) } as const
 * // → {"discrepancies":[{"eventId":7,"ticker":"AAPL","ledger":"10","chain":"9","resolution":{"state":"open",…}}]}
 */
export function getDiscrepancies(data: DashboardData) {
  return (request: ControlRequest): ControlReply => {
    const query = readQuery(request, querySchema, 'Invalid discrepancies query')
    const events = [] as ReturnType<DashboardData['ledger']['events']['listAfter']>
    // Discrepancies are rare; the whole kind is read by pages of the stream's own reader.
    for (let after = 0; ; ) {
      const page = data.ledger.events.listAfter(after, { kinds: ['discrepancy'], limit: 500 })
      events.push(...page)
      const last = page.at(-1)
      if (page.length < 500 || !last) break
      after = last.id
    }
    const adjustments = data.ledger.database.prepare(
      `SELECT kind, reason, recorded_at_ms FROM position_adjustments
       WHERE chain_id = ? AND lower(token_address) = lower(?) AND recorded_at_ms >= ?
       ORDER BY recorded_at_ms LIMIT 1`,
    )
    const reconciliation = data.lastReconciliation()
    const selected = events
      .filter((event) => query.chainId === undefined || event.chainId === query.chainId)
      .filter((event) => query.since === undefined || event.atMs >= query.since)
    const discrepancies = selected
      .map((event) => {
        const token = textOf(event.data.tokenAddress)
        const later = events.find(
          (other) =>
            other.id > event.id && other.chainId === event.chainId && other.data.tokenAddress === token,
        )
        const adjustment =
          event.chainId !== null && token !== null
            ? (adjustments.get(event.chainId, token, event.atMs) as AdjustmentRow | undefined)
            : undefined
        const resolution = later
          ? {
              state: 'superseded' as const,
              detail: `a later finding (#${later.id}) replaced it`,
              at: iso(later.atMs),
            }
          : adjustment
            ? {
                state: 'adjusted' as const,
                detail: `position adjusted (${adjustment.kind}): ${adjustment.reason}`,
                at: iso(adjustment.recorded_at_ms),
              }
            : reconciliation && reconciliation.atMs > event.atMs && reconciliation.discrepancies === 0
              ? {
                  state: 'cleared' as const,
                  detail: 'the last reconciliation found the ledger and the chain agree',
                  at: iso(reconciliation.atMs),
                }
              : {
                  state: 'open' as const,
                  detail: 'still stands: check the ledger against the chain',
                  at: null,
                }
        return {
          eventId: event.id,
          chainId: event.chainId,
          at: iso(event.atMs),
          ticker: textOf(event.data.ticker),
          tokenAddress: token,
          kind: textOf(event.data.kind),
          ledger: textOf(event.data.ledger),
          chain: textOf(event.data.chain),
          service: textOf(event.data.service),
          resolution,
        }
      })
      .reverse()
      .slice(0, query.limit ?? 500)
    return { status: 200, body: { discrepancies } }
  }
}
