import { writeFileSync } from 'node:fs'
import type Database from 'better-sqlite3'
import {
  availableReports,
  csvTargetsOf,
  defaultListLimit,
  type Report,
  type ReportFilter,
  renderReportJson,
  renderReportPage,
  renderReportText,
  renderTableCsv,
  runReport,
  runReportAcrossLedgers,
} from '../../report/index.js'
import { openLedger } from '../../store/index.js'
import { configFxRates } from '../configFxRates.js'
import { configTwapOrders } from '../configTwapOrders.js'
import { readLedgerTarget } from '../daemon/readLedgerTarget.js'
import { fetchMarketPriceBook, type PriceSource } from '../fetchMarketPriceBook.js'
import { openReportLedgers, type ReportLedgers } from './reportLedgers.js'
import { ReportUsageError } from './reportUsageError.js'

/** The options of `stockroute report`, as commander parsed them. */
export type ReportOptions = {
  config: string
  /** Ledger files to read instead of the config's ledger (`--ledger`, repeatable), in the order given. */
  ledger?: string[]
  chain?: number
  ticker?: string
  strategy?: string
  since?: Date
  until?: Date
  table?: string
  limit?: number
  all?: boolean
  offline?: boolean
  /** The terminal table with every column and value whole (else it fits 120 columns). */
  wide?: boolean
  json?: boolean
  csv?: string
  html?: string
}

export { ReportUsageError } from './reportUsageError.js'

/** The reports that value open positions at a price (unrealized PnL). */
const pricedReports: ReadonlySet<string> = new Set(['summary', 'positions', 'pnl'])

/**
 * What `stockroute report <name>` runs (its options: ./reportCommand.ts): the report of the
 * config's ledger, or of the `--ledger` files (one: that ledger's report; several: one report over
 * them all, src/report/acrossLedgers.ts), opened read-only, in the formats asked. Throws
 * {@link ReportUsageError} for a command line that cannot be run as written, `LedgerError` for a
 * ledger file that is missing or not a ledger (./reportLedgers.ts).
 */
export async function runReportCommand(name: string, options: ReportOptions): Promise<void> {
  const available: readonly string[] = availableReports()
  if (!available.includes(name))
    throw new ReportUsageError(`there is no report "${name}": the reports are ${available.join(', ')}`)
  if (options.since && options.until && options.since.getTime() >= options.until.getTime())
    throw new ReportUsageError(
      `--since (${options.since.toISOString()}) must be before --until (${options.until.toISOString()}): the window is empty`,
      'give a --since earlier than --until, or leave one of them out',
    )
  if (options.json && options.csv === '-')
    throw new ReportUsageError(
      '--json and --csv - both print on stdout: choose one, or give --csv a file name',
    )
  const filter: ReportFilter = {}
  if (options.chain !== undefined) filter.chainId = options.chain
  if (options.ticker !== undefined) filter.ticker = options.ticker
  if (options.strategy !== undefined) filter.strategy = options.strategy
  if (options.since) filter.sinceMs = options.since.getTime()
  if (options.until) filter.untilMs = options.until.getTime()
  if (options.all && options.limit !== undefined)
    throw new ReportUsageError('--all and --limit contradict each other: give one')
  if (!options.all) filter.limit = options.limit ?? defaultListLimit
  const target = readLedgerTarget(options.config)
  const fxRates = configFxRates(target.configPath)
  const opened = openLedgers(options.ledger, target.ledgerPath)
  let report: Report
  try {
    const databases = opened.ledgers.map((entry) => entry.ledger.database)
    let prices: PriceSource | undefined
    if (pricedReports.has(name))
      prices = options.offline
        ? { book: undefined, note: 'prices offline (--offline): open positions at their last fill' }
        : await fetchMarketPriceBook(target.configPath, openPositionsOf(databases), priceBudgetMs)
    const twapOrders = name === 'strategies' ? configTwapOrders(target.configPath) : undefined
    const context = { now: Date.now, fxRates, marketPrices: prices?.book, twapOrders }
    const [only, ...more] = opened.ledgers
    report =
      only && more.length === 0
        ? runReport(name, { ...context, ledger: only.ledger }, filter)
        : runReportAcrossLedgers(
            name,
            opened.ledgers.map((entry) => ({
              name: entry.name,
              path: entry.path,
              database: entry.ledger.database,
            })),
            context,
            filter,
          )
    if (prices) report = { ...report, notes: [...report.notes, prices.note] }
  } finally {
    opened.close()
  }
  if (options.table !== undefined) report = onlyTable(report, options.table)
  if (options.csv !== undefined) writeCsv(report, options.csv)
  if (options.html !== undefined) {
    writeFileSync(options.html, renderReportPage(report))
    process.stderr.write(`wrote ${options.html}\n`)
  }
  if (options.json) process.stdout.write(renderReportJson(report))
  else if (options.csv === undefined && options.html === undefined)
    process.stdout.write(renderReportText(report, { wide: options.wide === true }))
}

/** The report with only the table `key`; a usage error naming the keys when it has none such. */
function onlyTable(report: Report, key: string): Report {
  const table = report.tables.find((candidate) => candidate.key === key)
  if (!table)
    throw new ReportUsageError(
      `the ${report.name} report has no table "${key}": its tables are ${report.tables.map((candidate) => candidate.key).join(', ')}`,
      'pass one of those keys to --table, or leave --table out for every table',
    )
  return { ...report, tables: [table] }
}

function writeCsv(report: Report, file: string): void {
  if (file === '-') {
    const [table, ...more] = report.tables
    if (!table || more.length > 0)
      throw new ReportUsageError(
        `--csv - prints one table, and the ${report.name} report has ${report.tables.length}: choose one with --table (${report.tables.map((candidate) => candidate.key).join(', ')}), or give a file name`,
      )
    process.stdout.write(renderTableCsv(table))
    return
  }
  const tables = new Map(report.tables.map((table) => [table.key, table]))
  for (const { tableKey, path } of csvTargetsOf(report, file)) {
    const table = tables.get(tableKey)
    if (!table) continue
    writeFileSync(path, renderTableCsv(table))
    process.stderr.write(`wrote ${path}\n`)
  }
}

/** How long a report waits for the service's market quotes before pricing offline. */
const priceBudgetMs = 3_000

/** The ledgers a report reads: the `--ledger` files when given, else the config's ledger. */
function openLedgers(files: readonly string[] | undefined, configLedger: string): ReportLedgers {
  if (files !== undefined && files.length > 0) return openReportLedgers(files)
  const ledger = openLedger({ path: configLedger, readonly: true })
  return { ledgers: [{ name: configLedger, path: ledger.path, ledger }], close: () => ledger.close() }
}

/** The stocks of the ledgers' open positions (each once). */
function openPositionsOf(databases: readonly Database.Database[]): { exchange: number; ticker: string }[] {
  const stocks = new Map<string, { exchange: number; ticker: string }>()
  for (const database of databases)
    for (const stock of database
      .prepare<[], { exchange: number; ticker: string }>(
        "SELECT DISTINCT exchange, ticker FROM positions WHERE balance <> '0'",
      )
      .all())
      stocks.set(`${stock.exchange}:${stock.ticker}`, stock)
  return [...stocks.values()]
}
