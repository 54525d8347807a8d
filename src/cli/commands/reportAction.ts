import { writeFileSync } from 'node:fs'
import { StockrouteError } from '@stockroute/client/domain/errors.js'
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
} from '../../report/index.js'
import { openLedger } from '../../store/index.js'
import { configFxRates } from '../configFxRates.js'
import { readLedgerTarget } from '../daemon/readLedgerTarget.js'
import { fetchMarketPriceBook, type PriceSource } from '../fetchMarketPriceBook.js'

/** The options of `stockroute report`, as commander parsed them. */
export type ReportOptions = {
  config: string
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

/** A report command line that cannot be run as written: exit code 2, usage (../exitCodes.ts). */
export class ReportUsageError extends StockrouteError {
  override name = 'ReportUsageError'
  declare readonly code: 'INVALID_OPTIONS'
  constructor(shortMessage: string, remedy?: string) {
    super({ code: 'INVALID_OPTIONS', shortMessage, remedy })
  }
}

/** The reports that value open positions at a price (unrealized PnL). */
const pricedReports: ReadonlySet<string> = new Set(['summary', 'positions', 'pnl'])

/**
 * What `stockroute report <name>` runs (its options: ./reportCommand.ts): the report of the
 * config's ledger, opened read-only, in the formats asked. Throws {@link ReportUsageError} for a
 * command line that cannot be run as written.
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
  const ledger = openLedger({ path: target.ledgerPath, readonly: true })
  let report: Report
  try {
    let prices: PriceSource | undefined
    if (pricedReports.has(name))
      prices = options.offline
        ? { book: undefined, note: 'prices offline (--offline): open positions at their last fill' }
        : await fetchMarketPriceBook(target.configPath, openPositionsOf(ledger.database), priceBudgetMs)
    report = runReport(name, { ledger, now: Date.now, fxRates, marketPrices: prices?.book }, filter)
    if (prices) report = { ...report, notes: [...report.notes, prices.note] }
  } finally {
    ledger.close()
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

/** The stocks of the ledger's open positions. */
function openPositionsOf(database: Database.Database): { exchange: number; ticker: string }[] {
  return database
    .prepare<[], { exchange: number; ticker: string }>(
      "SELECT DISTINCT exchange, ticker FROM positions WHERE balance <> '0'",
    )
    .all()
}
