// bench:report — every report of `stockroute report` against a large generated ledger (by default
// 1,000,000 fills over 2 chains, 200 tokens, ~90 days: bench/report/generateLedger.ts, cached in the
// temp folder), opened read-only as the CLI opens it. Each report runs unfiltered, for one chain and
// the last 30 days, and for one ticker (the busiest), several times; the table shows the median and
// the max against the target of 1000 ms, the time spent inside SQLite (the report's statements),
// the rows the report returned (all tables) and the heap it held. The CLI has no row limit: the
// fills and executions reports return every row they select, and are measured that way.
//
// Run: npm run bench:report [-- --json] [--runs 3] [--fills 1000000] [--regenerate]
//      [--reports fills,latency] [--explain] [--all]
//   --explain       prints EXPLAIN QUERY PLAN of every statement of every report (stderr)
//   --all           the list tables (executions, fills) hold every row selected, as
//                   `stockroute report … --all` does, instead of the CLI's default newest 1000
import { statSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { pathToFileURL } from 'node:url'
import { defaultListLimit, type ReportQuery, reportQueries } from '../src/report/index.js'
import { type Report, type ReportFilter, type ReportName, reportNames } from '../src/report/types.js'
import { openLedger } from '../src/store/openLedger.js'
import { explain, recordStatements } from './report/instrument.js'
import { ensureBenchLedger } from './report/ledgerCache.js'

const args = process.argv.slice(2)
const json = args.includes('--json')
const optionValue = (name: string) => {
  const at = args.indexOf(`--${name}`)
  return at < 0 ? undefined : args[at + 1]
}
const wholeNumber = (name: string, fallback: number, min: number, max: number) => {
  const text = optionValue(name)
  if (text === undefined) return fallback
  const value = Number(text)
  if (!Number.isInteger(value) || value < min || value > max)
    throw new Error(`--${name} must be a whole number from ${min} to ${max}`)
  return value
}
const runs = wholeNumber('runs', 3, 1, 100)
const fills = wholeNumber('fills', 1_000_000, 1_000, 5_000_000)
const everyRow = args.includes('--all')
const targetMs = 1000
/** A case stops repeating once its runs took this long in total: one run of a 60 s report says enough. */
const caseBudgetMs = 15_000
const progress = (message: string) => process.stderr.write(`[bench:report] ${message}\n`)
const gc = (globalThis as { gc?: () => void }).gc

const { path, meta, generated } = ensureBenchLedger({
  fills,
  regenerate: args.includes('--regenerate'),
  log: progress,
})

// Reports not in the registry yet are taken from their query file, when it exists.
const queries = new Map<ReportName, { query: ReportQuery; registered: boolean }>()
for (const name of reportNames) {
  const registered = reportQueries[name]
  if (registered) {
    queries.set(name, { query: registered, registered: true })
    continue
  }
  try {
    const module = (await import(
      pathToFileURL(`${import.meta.dirname}/../src/report/queries/${name}.ts`).href
    )) as Record<string, unknown>
    const query = module[`${name}Report`]
    if (typeof query === 'function') queries.set(name, { query: query as ReportQuery, registered: false })
  } catch {}
}
const only = optionValue('reports')?.split(',')
const selected = reportNames.filter((name) => queries.has(name) && (!only || only.includes(name)))
const missing = reportNames.filter((name) => !queries.has(name))
if (missing.length > 0) progress(`not available in this build (no query yet): ${missing.join(', ')}`)

const listLimit = everyRow ? undefined : defaultListLimit
const filters: { key: string; title: string; filter: ReportFilter }[] = [
  { key: 'all', title: 'unfiltered', filter: { limit: listLimit } },
  {
    key: 'chain30d',
    title: `chain ${meta.busiestChainId}, 30 d`,
    filter: { chainId: meta.busiestChainId, sinceMs: meta.endMs - 30 * 86_400_000, limit: listLimit },
  },
  {
    key: 'ticker',
    title: `ticker ${meta.busiestTicker}`,
    filter: { ticker: meta.busiestTicker, limit: listLimit },
  },
]

type CaseResult = {
  filter: string
  runs: number
  ms: number
  maxMs: number
  sqlMs: number
  rows: number
  largestTable: string
  heapMb: number
  statements: { sql: string; ms: number; rows: number; plan?: string[] | undefined }[]
}
const results = new Map<ReportName, { registered: boolean; cases: CaseResult[] }>()
const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2
}

const ledger = openLedger({ path, readonly: true })
try {
  const recorder = recordStatements(ledger.database)
  const context = { ledger: { database: recorder.database }, now: () => meta.endMs }
  for (const name of selected) {
    const { query, registered } = queries.get(name) as { query: ReportQuery; registered: boolean }
    const cases: CaseResult[] = []
    for (const { key, title, filter } of filters) {
      const times: number[] = []
      const sqlTimes: number[] = []
      let report: Report | undefined
      let heapMb = 0
      let statements: CaseResult['statements'] = []
      let spent = 0
      for (let run = 0; run < runs && (run === 0 || spent < caseBudgetMs); run++) {
        report = undefined
        gc?.()
        const heapBefore = process.memoryUsage().heapUsed
        recorder.reset()
        const started = performance.now()
        report = query(context, filter)
        const ms = performance.now() - started
        heapMb = Math.max(heapMb, (process.memoryUsage().heapUsed - heapBefore) / 1e6)
        times.push(ms)
        spent += ms
        const recorded = recorder.statements()
        sqlTimes.push(recorded.reduce((sum, call) => sum + call.ms, 0))
        statements = recorded.map((call) => ({
          sql: call.sql,
          ms: call.ms,
          rows: call.rows,
          params: call.params,
        }))
        if (run === 0 && args.includes('--explain'))
          for (const call of recorded) {
            const plan = explain(ledger.database, call)
            const entry = statements.find((s) => s.sql === call.sql)
            if (entry) entry.plan = plan
            progress(
              `${name} (${title}) ${Math.round(call.ms)} ms, ${call.rows} rows:\n${call.sql.replace(/\s+/g, ' ').slice(0, 400)}\n  ${plan.join('\n  ')}`,
            )
          }
      }
      const tables = report?.tables ?? []
      const largest = [...tables].sort((a, b) => b.rows.length - a.rows.length)[0]
      const result: CaseResult = {
        filter: key,
        runs: times.length,
        ms: Math.round(median(times)),
        maxMs: Math.round(Math.max(...times)),
        sqlMs: Math.round(median(sqlTimes)),
        rows: tables.reduce((sum, table) => sum + table.rows.length, 0),
        largestTable: largest ? `${largest.key}: ${largest.rows.length}` : '',
        heapMb: Math.round(heapMb),
        statements: statements.map(({ sql, ms, rows, plan }) => ({
          sql: sql.replace(/\s+/g, ' ').trim(),
          ms: Math.round(ms),
          rows,
          ...(plan ? { plan } : {}),
        })),
      }
      cases.push(result)
      report = undefined
      progress(
        `${name} ${title}: median ${result.ms} ms, max ${result.maxMs} ms (${result.runs} runs), sql ${result.sqlMs} ms, ${result.rows} rows`,
      )
    }
    results.set(name, { registered, cases })
  }
} finally {
  ledger.close()
}

const ledgerBytes = statSync(path).size
const machine = {
  cpus: cpus().length,
  loadAverage1m: Number(loadavg()[0]?.toFixed(2)),
  note: '2 cores shared with other engineers\u2019 test runs: figures vary with their load',
}
if (json) {
  const reports: Record<string, unknown> = {}
  for (const [name, { registered, cases }] of results) {
    const [all, ...filtered] = cases
    reports[name] = {
      ms: all?.ms,
      maxMs: all?.maxMs,
      rows: all?.rows,
      sqlMs: all?.sqlMs,
      runs: all?.runs,
      heapMb: all?.heapMb,
      underTarget: (all?.maxMs ?? Infinity) < targetMs,
      registered,
      statements: all?.statements,
      filters: Object.fromEntries(
        filtered.map((c) => [
          c.filter,
          {
            ms: c.ms,
            maxMs: c.maxMs,
            rows: c.rows,
            sqlMs: c.sqlMs,
            runs: c.runs,
            underTarget: c.maxMs < targetMs,
            statements: c.statements,
          },
        ]),
      ),
    }
  }
  console.log(
    JSON.stringify({
      reports,
      unavailable: missing,
      filters: Object.fromEntries(filters.map((f) => [f.key, f.filter])),
      targetMs,
      fills: meta.fills,
      executions: meta.executions,
      executionEvents: meta.executionEvents,
      ledgerBytes,
      ledgerPath: path,
      generatorVersion: meta.generatorVersion,
      generatedThisRun: generated,
      generatedInMs: meta.generatedInMs,
      eventsStream: meta.eventsStream,
      listLimit: listLimit ?? null,
      machine,
    }),
  )
} else {
  console.log(
    `${meta.fills.toLocaleString('en')} fills, ${meta.executions.toLocaleString('en')} executions, ${meta.executionEvents.toLocaleString('en')} execution events; ledger ${(ledgerBytes / 1e9).toFixed(2)} GB, read-only; ms per report (median and max of up to ${runs} runs)${listLimit === undefined ? '; list tables: every row (--all)' : `; list tables: the newest ${listLimit} rows (the CLI's default)`}`,
  )
  console.log(`machine: ${machine.cpus} cores, load ${machine.loadAverage1m} — ${machine.note}`)
  const header = [
    'report'.padEnd(11),
    'filter'.padEnd(20),
    'runs'.padStart(4),
    'median'.padStart(8),
    'max'.padStart(8),
    'sql'.padStart(8),
    'rows'.padStart(9),
    'heap MB'.padStart(8),
    `< ${targetMs} ms`,
  ]
  console.log(header.join(' '))
  for (const [name, { registered, cases }] of results)
    for (const c of cases) {
      const title = filters.find((f) => f.key === c.filter)?.title ?? c.filter
      console.log(
        [
          (registered ? name : `${name}*`).padEnd(11),
          title.padEnd(20),
          String(c.runs).padStart(4),
          String(c.ms).padStart(8),
          String(c.maxMs).padStart(8),
          String(c.sqlMs).padStart(8),
          String(c.rows).padStart(9),
          String(c.heapMb).padStart(8),
          c.maxMs < targetMs ? 'ok' : 'SLOW',
        ].join(' '),
      )
    }
  if (results.size > 0 && [...results.values()].some((r) => !r.registered))
    console.log('* not in src/report/index.ts yet: imported from its query file')
  if (missing.length > 0) console.log(`not available yet: ${missing.join(', ')}`)
}
