// The slow statements of the report queries, as they are (copied from src/report/queries on
// 2026-11-25) and as proposed (a WHERE built from the filter's present fields, block_time compared
// in seconds, a token-scoped fill stream), timed without and with the indices of proposedIndexes.ts
// on the cached bench ledger; each pair is checked to return the same rows. SQL time only (the
// statement's rows fetched into JS), median of N runs.
//
// Run: npx tsx bench/report/queryVariants.ts [--runs 3] [--fills 1000000] [--json] [--all]

import Database from 'better-sqlite3'
import { latencySql } from '../../src/report/queries/latency.js'
import { benchLedgerPath, readCachedMeta } from './ledgerCache.js'
import { proposedIndexes } from './proposedIndexes.js'

const args = process.argv.slice(2)
const optionValue = (name: string) => {
  const at = args.indexOf(`--${name}`)
  return at < 0 ? undefined : args[at + 1]
}
const runs = Number(optionValue('runs') ?? 3)
const fills = Number(optionValue('fills') ?? 1_000_000)
const path = benchLedgerPath(fills)
const meta = readCachedMeta(path, fills)
if (!meta) throw new Error(`no cached bench ledger at ${path}: run npm run bench:report first`)
const progress = (message: string) => process.stderr.write(`[queryVariants] ${message}\n`)

const chainId = meta.busiestChainId
const sinceMs = meta.endMs - 30 * 86_400_000
const ticker = meta.busiestTicker
type Params = Record<string, string | number | null>
const orNull = (alias: string) =>
  [
    `(@chain_id IS NULL OR ${alias}.chain_id = @chain_id)`,
    `(@ticker IS NULL OR ${alias}.ticker = @ticker)`,
    `(@strategy IS NULL OR ${alias}.strategy = @strategy)`,
    `(@since_ms IS NULL OR ${alias}.created_at_ms >= @since_ms)`,
    `(@until_ms IS NULL OR ${alias}.created_at_ms < @until_ms)`,
  ].join(' AND ')
const allNull = { chain_id: null, ticker: null, strategy: null, since_ms: null, until_ms: null }
const executionsSql = (where: string) =>
  `SELECT e.id, e.created_at_ms, e.chain_id, e.ticker, e.side, e.amount_in, e.amount_type, e.strategy, e.state, e.reason
   FROM executions e WHERE ${where} ORDER BY e.id DESC`
const fillsSql = (where: string) =>
  `SELECT f.id, f.chain_id, f.tx_hash, f.execution_id, f.quote_id, f.token_kind, f.asset_decimals, f.ticker,
          f.exchange, f.is_buy, f.amount_in, f.amount_out, f.fee_amount, f.block_time,
          e.strategy, e.quote_json, e.market_price, e.market_price_at_ms
   FROM fills f LEFT JOIN executions e ON e.id = f.execution_id
   WHERE f.reversed_at_ms IS NULL AND ${where} ORDER BY f.block_time, f.id`
const fillsOrNull = `(@chain_id IS NULL OR f.chain_id = @chain_id) AND (@ticker IS NULL OR f.ticker = @ticker)
  AND (@strategy IS NULL OR e.strategy = @strategy) AND (@since_ms IS NULL OR f.block_time * 1000 >= @since_ms)
  AND (@until_ms IS NULL OR f.block_time * 1000 < @until_ms)`
const lastFillSql = `SELECT seq, is_buy, amount_in, amount_out FROM fills
  WHERE chain_id = ? AND stock_token = ? AND reversed_at_ms IS NULL ORDER BY seq DESC LIMIT 1`
const foldSql = (where: string) =>
  `SELECT f.seq, f.chain_id, f.stock_token, f.asset_token, f.asset_decimals, f.token_kind, f.ticker, f.exchange,
     f.is_buy, f.amount_in, f.amount_out, f.fee_amount, f.block_time, e.strategy
   FROM fills f LEFT JOIN executions e ON e.id = f.execution_id
   WHERE f.reversed_at_ms IS NULL AND ${where} ORDER BY f.seq`

type Variant = { name: string; run: (db: Database.Database) => unknown[] }
/** `indexedOnly`: too slow to repeat without the index (minutes at 1M fills): bench:report measures it as is. */
type Pair = { case: string; before: Variant; after: Variant; indexedOnly?: boolean }
const all = (sql: string, params: Params | unknown[]) => (db: Database.Database) =>
  Array.isArray(params) ? db.prepare(sql).all(...params) : db.prepare(sql).all(params)

const pairs: Pair[] = [
  {
    case: 'last live fill of every position (valuePosition, ×200)',
    indexedOnly: !args.includes('--all'),
    before: {
      name: 'as is',
      run: (db) => {
        const statement = db.prepare(lastFillSql)
        return db
          .prepare<[], { chain_id: number; token_address: string }>(
            'SELECT chain_id, token_address FROM positions',
          )
          .all()
          .map((p) => statement.get(p.chain_id, p.token_address))
      },
    },
    after: { name: 'same SQL', run: (db) => pairs[0]?.before.run(db) ?? [] },
  },
  {
    case: `executions, chain ${chainId} + 30 d`,
    before: {
      name: 'as is',
      run: all(executionsSql(orNull('e')), { ...allNull, chain_id: chainId, since_ms: sinceMs }),
    },
    after: {
      name: 'WHERE of present fields',
      run: all(executionsSql('e.chain_id = @chain_id AND e.created_at_ms >= @since_ms'), {
        chain_id: chainId,
        since_ms: sinceMs,
      }),
    },
  },
  {
    case: `executions, ticker ${ticker}`,
    before: { name: 'as is', run: all(executionsSql(orNull('e')), { ...allNull, ticker }) },
    after: { name: 'WHERE of present fields', run: all(executionsSql('e.ticker = @ticker'), { ticker }) },
  },
  {
    case: `fills, chain ${chainId} + 30 d`,
    before: {
      name: 'as is',
      run: all(fillsSql(fillsOrNull), { ...allNull, chain_id: chainId, since_ms: sinceMs }),
    },
    after: {
      name: 'present fields, block_time in s',
      run: all(fillsSql('f.chain_id = @chain_id AND f.block_time >= @since_s'), {
        chain_id: chainId,
        since_s: Math.ceil(sinceMs / 1000),
      }),
    },
  },
  {
    case: `fills, ticker ${ticker}`,
    before: { name: 'as is', run: all(fillsSql(fillsOrNull), { ...allNull, ticker }) },
    after: { name: 'present fields', run: all(fillsSql('f.ticker = @ticker'), { ticker }) },
  },
  {
    case: 'latency, unfiltered',
    before: { name: 'as is', run: all(latencySql(orNull('e')), allNull) },
    after: { name: 'same SQL', run: all(latencySql('1'), {}) },
  },
  {
    case: `latency, chain ${chainId} + 30 d`,
    before: {
      name: 'as is',
      run: all(latencySql(orNull('e')), { ...allNull, chain_id: chainId, since_ms: sinceMs }),
    },
    after: {
      name: 'WHERE of present fields',
      run: all(latencySql('e.chain_id = @chain_id AND e.created_at_ms >= @since_ms'), {
        chain_id: chainId,
        since_ms: sinceMs,
      }),
    },
  },
  {
    case: `fold stream for ticker ${ticker} (pnl, strategies, summary)`,
    before: {
      name: 'every fill, scoped in JS',
      run: (db) => {
        const tokens = new Set(
          db
            .prepare<[string], { chain_id: number; token_address: string }>(
              'SELECT chain_id, token_address FROM positions WHERE ticker = ?',
            )
            .all(ticker)
            .map((row) => `${row.chain_id}:${row.token_address}`),
        )
        const out: unknown[] = []
        for (const row of db
          .prepare(foldSql('(? IS NULL OR f.chain_id = ?)'))
          .iterate(null, null) as Iterable<{
          seq: number
          chain_id: number
          stock_token: string
        }>)
          if (tokens.has(`${row.chain_id}:${row.stock_token}`)) out.push(row.seq)
        return out
      },
    },
    after: {
      name: 'token scope in SQL',
      run: (db) =>
        db
          .prepare<[string], { seq: number }>(
            foldSql(
              `(f.chain_id, f.stock_token) IN (SELECT chain_id, token_address FROM positions WHERE ticker = ?)`,
            ),
          )
          .all(ticker)
          .map((row) => row.seq),
    },
  },
]

const median = (values: number[]) => [...values].sort((a, b) => a - b)[values.length >> 1] as number
const time = (db: Database.Database, variant: Variant) => {
  const times: number[] = []
  let rows: unknown[] = []
  for (let i = 0; i < runs; i++) {
    const started = performance.now()
    rows = variant.run(db)
    times.push(performance.now() - started)
  }
  return { ms: Math.round(median(times)), rows }
}

const db = new Database(path, { readonly: true })
const results: Record<string, unknown>[] = []
const measure = (withIndexes: boolean) => {
  for (const pair of pairs) {
    if (pair.indexedOnly && !withIndexes) {
      progress(
        `without indices | ${pair.case}: skipped (minutes at 1M fills; see bench:report, or pass --all)`,
      )
      continue
    }
    const before = time(db, pair.before)
    const after = time(db, pair.after)
    const same = JSON.stringify(before.rows) === JSON.stringify(after.rows)
    results.push({
      case: pair.case,
      indexes: withIndexes,
      before: pair.before.name,
      beforeMs: before.ms,
      after: pair.after.name,
      afterMs: after.ms,
      rows: after.rows.length,
      sameRows: same,
    })
    progress(
      `${withIndexes ? 'with ' : 'without'} indices | ${pair.case}: ${pair.before.name} ${before.ms} ms, ${pair.after.name} ${after.ms} ms, ${after.rows.length} rows${same ? '' : ' ROWS DIFFER'}`,
    )
  }
}
try {
  measure(false)
  const writer = new Database(path)
  for (const index of proposedIndexes) {
    const started = performance.now()
    writer.exec(index.create)
    progress(`created ${index.name} in ${Math.round(performance.now() - started)} ms`)
  }
  writer.close()
  measure(true)
} finally {
  db.close()
  const writer = new Database(path)
  for (const index of proposedIndexes) writer.exec(`DROP INDEX IF EXISTS ${index.name}`)
  writer.close()
  progress('proposed indices dropped')
}
if (args.includes('--json')) console.log(JSON.stringify({ runs, fills: meta.fills, results }))
else {
  console.log(
    `SQL time, median of ${runs} runs; 2 shared cores (other engineers' runs): figures vary with their load`,
  )
  for (const r of results)
    console.log(
      `${String(r.indexes ? 'indexed' : 'no index').padEnd(9)} ${String(r.case).padEnd(58)} ${String(r.before).padEnd(26)} ${String(r.beforeMs).padStart(7)} ms  ${String(r.after).padEnd(32)} ${String(r.afterMs).padStart(7)} ms  ${String(r.rows).padStart(8)} rows${r.sameRows ? '' : '  ROWS DIFFER'}`,
    )
}
