import { seriesQuerySchema } from '../contract.js'
import { readQuery } from '../http/readQuery.js'
import type { ControlReply, ControlRequest } from '../types.js'
import type { DashboardData } from './dashboardData.js'

const querySchema = seriesQuerySchema('/v1/series/latency')

type Row = {
  id: number
  chain_id: number
  submitted_at_ms: number
  quote_to_broadcast_ms: number | null
  broadcast_to_inclusion_ms: number | null
}

/**
 * `GET /v1/series/latency?chainId&since&limit`: the newest executions that reached broadcast (500
 * unless `limit`), oldest first, each with quote → broadcast and broadcast → inclusion in ms: the
 * durations the latency report takes percentiles of (kept on each execution, migration 7).
 *
 * @example
 * const route = { method: 'GET', path: '/v1/series/latency', handle: getLatencySeries(data) } as const
 * // → {"points":[{"executionId":12,"chainId":31337,"atMs":…,"quoteToBroadcastMs":38,"broadcastToInclusionMs":1020}]}
 */
export function getLatencySeries(data: DashboardData) {
  return (request: ControlRequest): ControlReply => {
    const query = readQuery(request, querySchema, 'Invalid latency series query')
    const rows = data.ledger.database
      .prepare(
        `SELECT id, chain_id, submitted_at_ms, quote_to_broadcast_ms, broadcast_to_inclusion_ms
         FROM executions
         WHERE submitted_at_ms IS NOT NULL AND (@chainId IS NULL OR chain_id = @chainId)
           AND (@since IS NULL OR submitted_at_ms >= @since)
         ORDER BY submitted_at_ms DESC, id DESC LIMIT @limit`,
      )
      .all({ chainId: query.chainId ?? null, since: query.since ?? null, limit: query.limit ?? 500 }) as Row[]
    const points = rows.reverse().map((row) => ({
      executionId: row.id,
      chainId: row.chain_id,
      atMs: row.submitted_at_ms,
      quoteToBroadcastMs: row.quote_to_broadcast_ms,
      broadcastToInclusionMs: row.broadcast_to_inclusion_ms,
    }))
    return { status: 200, body: { points } }
  }
}
