// Generates a realistic stockroute ledger for the report benchmark (bench/reportQueries.ts): by
// default 1,000,000 fills over 2 chains and 200 tokens across ~90 days. The world (prices, weights,
// the fold of positions): ledgerState.ts; the rows: executionRows.ts (executions and everything they
// write) and corporateActions.ts (adjustments, renames, dividends); the file: ledgerWriter.ts. This
// drives them along the timeline and writes the closing rows (positions equal to the fold of fills,
// checkpoints, nonces, the kill switch's history).
import { positionParameters, upsertPositionStatement } from '../../src/store/positionRows.js'
import { scheduleCorporateActions } from './corporateActions.js'
import { createExecutionRows } from './executionRows.js'
import { createLedgerState, day } from './ledgerState.js'
import { openBulkWriter } from './ledgerWriter.js'
import { createRandom } from './random.js'
import { benchChains } from './universe.js'

/** Bump whenever the generated content changes: cached files of another version are not reused. */
export const generatorVersion = 1

export type LedgerMeta = {
  generatorVersion: number
  fills: number
  executions: number
  executionEvents: number
  transactions: number
  adjustments: number
  renames: number
  income: number
  positions: number
  startMs: number
  endMs: number
  seed: number
  generatedInMs: number
  /** The most traded ticker (for the "one ticker" filter). */
  busiestTicker: string
  busiestChainId: number
  /** Whether `events` holds a row per execution event and fill (see GenerateOptions.eventsStream). */
  eventsStream: boolean
}

export type GenerateOptions = {
  path: string
  fills: number
  seed?: number | undefined
  days?: number | undefined
  /** The ledger's last instant (default: a fixed date, so that cached files are comparable). */
  endMs?: number | undefined
  log?: ((message: string) => void) | undefined
  /**
   * Let the migration-4 triggers copy every execution event and fill into `events` (~2.5 KB per
   * fill: 2.5 GB more at 1M fills). Default false: the two triggers are dropped for the bulk insert
   * and recreated from their exact stored SQL (the schema ends identical); no report reads `events`.
   */
  eventsStream?: boolean | undefined
}

const defaultEndMs = Date.UTC(2026, 9, 31, 21, 0, 0)

/** Generates the ledger at `path` (replacing it). Returns what it wrote. */
export function generateLedger(options: GenerateOptions): LedgerMeta {
  const started = performance.now()
  const log = options.log ?? (() => {})
  const targetFills = options.fills
  const seed = options.seed ?? 20261031
  const days = options.days ?? 90
  const endMs = options.endMs ?? defaultEndMs
  const startMs = endMs - days * day
  const random = createRandom(seed)

  const writer = openBulkWriter(options.path, options.eventsStream ?? false)
  const { db, statements } = writer
  const world = createLedgerState({ random, startMs, days })
  const timeline = scheduleCorporateActions(world, statements)
  const executions = createExecutionRows({ world, statements, timeline, targetFills })
  const counts = executions.counts

  const batch = db.transaction((count: number) => {
    for (let n = 0; n < count && counts.fills < targetFills; n++) executions.step()
  })
  let lastLog = 0
  while (counts.fills < targetFills) {
    batch.immediate(20_000)
    if (counts.fills - lastLog >= 100_000 || counts.fills >= targetFills) {
      lastLog = counts.fills
      log(
        `${counts.fills.toLocaleString('en')} fills, ${counts.executions.toLocaleString('en')} executions, ${((performance.now() - started) / 1000).toFixed(1)} s`,
      )
    }
  }
  const t = counts.t
  db.transaction(() => {
    timeline.runRest(endMs)
    const upsert = upsertPositionStatement(db)
    for (const [key, state] of world.positions)
      upsert.run(positionParameters(state, world.positionUpdatedAt.get(key) ?? endMs))
    const checkpoint = db.prepare(
      'INSERT INTO checkpoints (chain_id, block_number, updated_at_ms) VALUES (?, ?, ?)',
    )
    const nonce = db.prepare(
      'INSERT INTO nonces (chain_id, address, next_nonce, updated_at_ms) VALUES (?, ?, ?, ?)',
    )
    for (const chain of benchChains) {
      checkpoint.run(chain.chainId, world.blockAt(chain, t) + 2, t)
      for (const wallet of chain.wallets)
        nonce.run(chain.chainId, wallet, world.nonces.get(`${chain.chainId}:${wallet}`), t)
    }
    const kill = db.prepare('INSERT INTO kill_switch_events (action, reason, at_ms) VALUES (?, ?, ?)')
    kill.run('halt', 'operator: exchange outage', startMs + 20 * day)
    kill.run('resume', 'operator: exchange back', startMs + 20 * day + 2 * 3_600_000)
  }).immediate()
  writer.finish(log)

  let busiest = ['', 0] as [string, number]
  for (const [key, count] of counts.fillsPerToken) if (count > busiest[1]) busiest = [key, count]
  const [busiestChain, busiestTicker] = busiest[0].split('|') as [string, string]
  return {
    generatorVersion,
    fills: counts.fills,
    executions: counts.executions,
    executionEvents: counts.eventRows,
    transactions: counts.transactions,
    adjustments: timeline.counts.adjustments,
    renames: timeline.counts.renames,
    income: timeline.counts.income,
    positions: world.positions.size,
    startMs,
    endMs,
    seed,
    generatedInMs: Math.round(performance.now() - started),
    busiestTicker,
    busiestChainId: Number(busiestChain),
    eventsStream: options.eventsStream ?? false,
  }
}
