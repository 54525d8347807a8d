import type Database from 'better-sqlite3'
import type { Report, ReportContext, ReportFilter, ReportKind, ReportRenderContext } from '../types.js'
import { executionFilterSql } from './executionFilterSql.js'

type LatencyRow = {
  chain_id: number
  /** 1, 2, 3: the index in {@link stages} plus one. */
  stage: number
  samples: number
  p50: number
  p90: number
  p99: number
  max: number
  mean: number
}

/** The stages, in pipeline order: key, title, and the executions column holding their duration. */
const stages = [
  { key: 'intent_to_quote', title: 'intent → quote', column: 'intent_to_quote_ms' },
  { key: 'quote_to_broadcast', title: 'quote → broadcast', column: 'quote_to_broadcast_ms' },
  { key: 'broadcast_to_inclusion', title: 'broadcast → inclusion', column: 'broadcast_to_inclusion_ms' },
] as const

const percentiles = [50, 90, 99] as const

/** Nearest rank: the p-th percentile of n sorted values is the one of rank ceil(p·n/100). */
const rankOf = (p: number, n: number) => Math.max(1, Math.ceil((p * n) / 100))

/** A mean of whole ms, rounded half away from zero. */
const meanOf = (sum: number, n: number) => Math.sign(sum) * Math.round(Math.abs(sum) / n)

/**
 * The `latency` report: percentiles (p50, p90, p99, max, nearest rank) and the mean per chain of
 * each stage of the pipeline, from the times each execution first reached a stage (kept on the
 * execution by a trigger on its events, migration 7): intent → quote (the execution's creation to
 * its first `quoted` event), quote → broadcast (the last `quoted` event before `submitted` to the
 * first `submitted` event, which is recorded when the execute is signed, right before its
 * broadcast) and broadcast → inclusion (`submitted` to the first `confirmed` event). An execution
 * counts in each stage it reached. The filter selects executions by chain, ticker, strategy and
 * creation time. Unfiltered (or by chain only), each percentile is read by its rank from the
 * stage's index; otherwise the selected durations are sorted.
 *
 * @example
 * const report = latencyReport({ ledger, now: Date.now }, { chainId: 31337 })
 * report.tables[0].rows // [{ chain_id: 31337, stage: 'intent → quote', samples: 12, p50_ms: 41, … }, …]
 */
export function latencyReport(context: ReportContext, filter: ReportFilter): Report {
  const narrowed =
    filter.ticker !== undefined ||
    filter.strategy !== undefined ||
    filter.sinceMs !== undefined ||
    filter.untilMs !== undefined
  const rows = narrowed
    ? latencyBySorting(context.ledger.database, filter)
    : latencyByRank(context.ledger.database, filter.chainId)
  return renderLatencyRows(rows, context, filter)
}

/**
 * What the latency report shows, merged from several ledgers: every duration selected, per chain
 * and stage (percentiles of several ledgers are those of all their durations, not a mix of theirs).
 */
export type LatencyData = { durations: Map<number, number[][]> }

/**
 * The latency report of several ledgers, in three steps (src/report/acrossLedgers.ts): each
 * ledger's selected durations read (as the report of a narrowed filter reads them), added together
 * per chain and stage, then sorted for exact percentiles.
 */
export const latencyKind: ReportKind<LatencyData> = {
  collect: (context, filter) => ({ durations: selectDurations(context.ledger.database, filter) }),
  merge: (parts) => {
    const durations = new Map<number, number[][]>()
    for (const part of parts)
      for (const [chain, byStage] of part.durations) {
        const into = durations.get(chain) ?? stages.map(() => [])
        byStage.forEach((values, index) => {
          const stage = into[index]
          // One by one: spreading a million values into push() would overflow the stack.
          if (stage) for (const value of values) stage.push(value)
        })
        durations.set(chain, into)
      }
    return { durations }
  },
  render: (data, context, filter, ledgers) => {
    const report = renderLatencyRows(rowsOfDurations(data.durations), context, filter)
    return ledgers === undefined
      ? report
      : {
          ...report,
          notes: [
            ...report.notes,
            'Several ledgers: the percentiles, maximum and mean are those of every selected execution of every ledger together.',
          ],
        }
  },
}

/** The latency report of its rows. */
function renderLatencyRows(
  rows: readonly LatencyRow[],
  context: ReportRenderContext,
  filter: ReportFilter,
): Report {
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
          stage: stages[row.stage - 1]?.title ?? String(row.stage),
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
      'From the time each execution first reached each stage (execution_events at_ms, the ledger clock in ms, kept on the execution as its events are written), for the executions selected by creation time, chain, ticker and strategy.',
      "intent → quote: the execution's creation to its first 'quoted' event (includes quote retries' first request only).",
      "quote → broadcast: the last 'quoted' event before 'submitted' (the quote actually sent) to the first 'submitted' event, recorded when the execute is signed, right before its broadcast; it covers the guard, the simulation, approvals and signing.",
      "broadcast → inclusion: 'submitted' to the first 'confirmed' event, recorded when the receipt (at the configured confirmations) and its fill were processed.",
      'Percentiles by nearest rank: the p-th percentile of n sorted durations is the one of rank ceil(p·n/100); mean rounded to the ms. An execution counts in every stage it reached.',
    ],
  }
}

/**
 * Per chain and stage, by rank on the stage's index (`executions_<stage>`, partial: durations only):
 * a count, sum and max, then one index seek per percentile.
 *
 * @example
 * latencyByRank(ledger.database, 31337)
 */
export function latencyByRank(database: Database.Database, chainId: number | undefined): LatencyRow[] {
  const chains =
    chainId !== undefined
      ? [chainId]
      : database
          .prepare<[], { id: number }>(
            // Distinct chains by successive index seeks, not by reading every execution.
            `WITH RECURSIVE chains (id) AS (
               SELECT min(chain_id) FROM executions
               UNION ALL SELECT (SELECT min(chain_id) FROM executions WHERE chain_id > chains.id) FROM chains
                 WHERE chains.id IS NOT NULL)
             SELECT id FROM chains WHERE id IS NOT NULL`,
          )
          .all()
          .map((row) => row.id)
  const rows: LatencyRow[] = []
  for (const chain of chains)
    stages.forEach((stage, index) => {
      const totals = database
        .prepare<[number], { n: number; sum: number | null; max: number | null }>(
          `SELECT count(*) AS n, sum(${stage.column}) AS sum, max(${stage.column}) AS max FROM executions
           WHERE chain_id = ? AND ${stage.column} IS NOT NULL`,
        )
        .get(chain) as { n: number; sum: number | null; max: number | null }
      if (totals.n === 0) return
      const at = database
        .prepare<[number, number], number>(
          `SELECT ${stage.column} FROM executions WHERE chain_id = ? AND ${stage.column} IS NOT NULL
           ORDER BY ${stage.column} LIMIT 1 OFFSET ?`,
        )
        .pluck()
      const [p50, p90, p99] = percentiles.map((p) => at.get(chain, rankOf(p, totals.n) - 1) as number)
      rows.push({
        chain_id: chain,
        stage: index + 1,
        samples: totals.n,
        p50: p50 as number,
        p90: p90 as number,
        p99: p99 as number,
        max: totals.max as number,
        mean: meanOf(totals.sum ?? 0, totals.n),
      })
    })
  return rows
}

/**
 * Per chain and stage, by sorting the durations of the executions `filter` selects.
 *
 * @example
 * latencyBySorting(ledger.database, { ticker: 'AAPL' })
 */
export function latencyBySorting(database: Database.Database, filter: ReportFilter): LatencyRow[] {
  return rowsOfDurations(selectDurations(database, filter))
}

/** The durations of the executions `filter` selects, per chain and stage (in the order read). */
function selectDurations(database: Database.Database, filter: ReportFilter): Map<number, number[][]> {
  const { where, params } = executionFilterSql(filter, 'e')
  const durations = new Map<number, number[][]>()
  for (const [chain, ...values] of database
    .prepare<Record<string, string | number>, (number | null)[]>(
      `SELECT e.chain_id, ${stages.map((stage) => `e.${stage.column}`).join(', ')} FROM executions e WHERE ${where}`,
    )
    .raw()
    .iterate(params)) {
    let byStage = durations.get(chain as number)
    if (!byStage) {
      byStage = stages.map(() => [])
      durations.set(chain as number, byStage)
    }
    values.forEach((value, index) => {
      if (value !== null) byStage[index]?.push(value)
    })
  }
  return durations
}

/** Per chain and stage, the percentiles, maximum and mean of the durations, sorted. */
function rowsOfDurations(durations: ReadonlyMap<number, readonly (readonly number[])[]>): LatencyRow[] {
  const rows: LatencyRow[] = []
  for (const chain of [...durations.keys()].sort((a, b) => a - b))
    durations.get(chain)?.forEach((values, index) => {
      if (values.length === 0) return
      const sorted = Float64Array.from(values).sort()
      const n = sorted.length
      rows.push({
        chain_id: chain,
        stage: index + 1,
        samples: n,
        p50: sorted[rankOf(50, n) - 1] as number,
        p90: sorted[rankOf(90, n) - 1] as number,
        p99: sorted[rankOf(99, n) - 1] as number,
        max: sorted[n - 1] as number,
        mean: meanOf(
          values.reduce((sum, value) => sum + value, 0),
          n,
        ),
      })
    })
  return rows
}
