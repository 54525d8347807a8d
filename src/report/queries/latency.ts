import type { Report, ReportContext, ReportFilter } from '../types.js'
import { executionFilterSql } from './executionFilterSql.js'

type LatencyRow = {
  chain_id: number
  stage: string
  samples: number
  p50: number
  p90: number
  p99: number
  max: number
  mean: number
}

/** The stages, in pipeline order: key, title, and the SQL of their duration per execution. */
const stages = [
  { key: 'intent_to_quote', title: 'intent → quote' },
  { key: 'quote_to_broadcast', title: 'quote → broadcast' },
  { key: 'broadcast_to_inclusion', title: 'broadcast → inclusion' },
] as const

/**
 * The `latency` report: percentiles (p50, p90, p99, max, nearest rank) and the mean per chain of
 * each stage of the pipeline, from `execution_events` in one SQL statement:
 * intent → quote (the execution's creation to its first `quoted` event), quote → broadcast (the
 * last `quoted` event before `submitted` to the first `submitted` event, which is recorded when
 * the execute is signed, right before its broadcast) and broadcast → inclusion (`submitted` to the
 * first `confirmed` event). An execution counts in each stage it reached. The filter selects
 * executions by chain, ticker, strategy and creation time.
 *
 * @example
 * const report = latencyReport({ ledger, now: Date.now }, { chainId: 31337 })
 * report.tables[0].rows // [{ chain_id: 31337, stage: 'intent → quote', samples: 12, p50_ms: 41, … }, …]
 */
export function latencyReport(context: ReportContext, filter: ReportFilter): Report {
  const { where, params } = executionFilterSql(filter, 'e')
  // Nearest rank: the p-th percentile of n sorted values is the value of rank ceil(p·n/100), i.e.
  // the smallest value whose rank r has r·100 >= p·n.
  const rows = context.ledger.database
    .prepare<Record<string, string | number | null>, LatencyRow>(latencySql(where))
    .all(params)
  return {
    name: 'latency',
    generatedAt: new Date(context.now()).toISOString(),
    filter,
    tables: [
      {
        key: 'latency',
        title: 'Latency per chain and stage (ms)',
        columns: [
          { key: 'chain_id', title: 'Chain', kind: 'integer' },
          { key: 'stage', title: 'Stage', kind: 'text' },
          { key: 'samples', title: 'Samples', kind: 'integer' },
          { key: 'p50_ms', title: 'p50', kind: 'ms' },
          { key: 'p90_ms', title: 'p90', kind: 'ms' },
          { key: 'p99_ms', title: 'p99', kind: 'ms' },
          { key: 'max_ms', title: 'max', kind: 'ms' },
          { key: 'mean_ms', title: 'mean', kind: 'ms' },
        ],
        rows: rows.map((row) => ({
          chain_id: row.chain_id,
          stage: stages[Number(row.stage) - 1]?.title ?? String(row.stage),
          samples: row.samples,
          p50_ms: row.p50,
          p90_ms: row.p90,
          p99_ms: row.p99,
          max_ms: row.max,
          mean_ms: row.mean,
        })),
      },
    ],
    notes: [
      'Computed in SQL from execution_events (at_ms, the ledger clock in ms) for the executions selected by creation time, chain, ticker and strategy.',
      "intent → quote: the execution's creation to its first 'quoted' event (includes quote retries' first request only).",
      "quote → broadcast: the last 'quoted' event before 'submitted' (the quote actually sent) to the first 'submitted' event, recorded when the execute is signed, right before its broadcast; it covers the guard, the simulation, approvals and signing.",
      "broadcast → inclusion: 'submitted' to the first 'confirmed' event, recorded when the receipt (at the configured confirmations) and its fill were processed.",
      'Percentiles by nearest rank: the p-th percentile of n sorted durations is the one of rank ceil(p·n/100); mean rounded to the ms. An execution counts in every stage it reached.',
    ],
  }
}

/**
 * The latency statement over the executions `where` selects (alias `e`): per chain and stage,
 * samples, nearest-rank p50/p90/p99, max and mean. Exported for bench:report's query variants.
 */
export const latencySql = (where: string): string =>
  `WITH marks AS (
     SELECT e.id, e.chain_id, e.created_at_ms AS created,
       (SELECT min(at_ms) FROM execution_events WHERE execution_id = e.id AND to_state = 'quoted') AS first_quoted,
       (SELECT min(at_ms) FROM execution_events WHERE execution_id = e.id AND to_state = 'submitted') AS submitted,
       (SELECT min(at_ms) FROM execution_events WHERE execution_id = e.id AND to_state = 'confirmed') AS confirmed
     FROM executions e WHERE ${where}
   ),
   durations AS (
     SELECT chain_id, 1 AS stage_order, first_quoted - created AS ms FROM marks WHERE first_quoted IS NOT NULL
     UNION ALL
     SELECT m.chain_id, 2, m.submitted - (SELECT max(at_ms) FROM execution_events
         WHERE execution_id = m.id AND to_state = 'quoted' AND at_ms <= m.submitted)
       FROM marks m WHERE m.submitted IS NOT NULL AND m.first_quoted IS NOT NULL
     UNION ALL
     SELECT chain_id, 3, confirmed - submitted FROM marks WHERE submitted IS NOT NULL AND confirmed IS NOT NULL
   ),
   ranked AS (
     SELECT chain_id, stage_order, ms,
       row_number() OVER (PARTITION BY chain_id, stage_order ORDER BY ms) AS rank,
       count(*) OVER (PARTITION BY chain_id, stage_order) AS n
     FROM durations WHERE ms IS NOT NULL
   )
   SELECT chain_id, stage_order AS stage, count(*) AS samples,
     min(CASE WHEN rank * 100 >= 50 * n THEN ms END) AS p50,
     min(CASE WHEN rank * 100 >= 90 * n THEN ms END) AS p90,
     min(CASE WHEN rank * 100 >= 99 * n THEN ms END) AS p99,
     max(ms) AS max, CAST(round(avg(ms)) AS INTEGER) AS mean
   FROM ranked GROUP BY chain_id, stage_order ORDER BY chain_id, stage_order`
