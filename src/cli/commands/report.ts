import { writeFileSync } from 'node:fs'
import type Database from 'better-sqlite3'
import { type Command, type CommanderError, InvalidArgumentError } from 'commander'
import { StockrouteError } from '../../domain/errors.js'
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
import { formatCliError } from '../formatCliError.js'
import { parsePositiveInteger } from '../options.js'
import { parseStrategyOption } from '../parseStrategyOption.js'
import { parseTimeOption } from '../parseTimeOption.js'
import { parseChainId, parseTicker } from '../tradeOptions.js'

type ReportOptions = {
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
  json?: boolean
  csv?: string
  html?: string
}

/** Exit code of a command line that cannot be run as written (bad option, filter or report name). */
const usageExitCode = 2

/** Commander's codes for a command line it could not parse: all exit with {@link usageExitCode}. */
const usageErrorCodes: ReadonlySet<string> = new Set([
  'commander.invalidArgument',
  'commander.missingArgument',
  'commander.missingMandatoryOptionValue',
  'commander.optionMissingArgument',
  'commander.unknownOption',
  'commander.excessArguments',
  'commander.conflictingOption',
])

/**
 * `stockroute report <name> [--chain ID] [--ticker T] [--strategy ID] [--since T] [--until T]
 * [--table KEY] [--json | --csv FILE|-] [--html FILE]`: a report of the config's ledger, opened
 * read-only (so it works whether or not the daemon runs, and never writes). Prints the report as a
 * terminal table, or as JSON (`--json`) or CSV (`--csv -`, one table: choose it with `--table`) on
 * stdout; `--csv FILE` writes `FILE` for a report of one table and `FILE-<key>.csv` (a `.csv`
 * extension moved to the end) for each table of a report of several; `--html FILE` writes one
 * self-contained page with charts. A bad option, filter or report name exits with code 2.
 *
 * @example
 * registerReportCommand(program)
 * // stockroute report fills --chain 31337 --since 2d --csv fills.csv --config ./sbx/stockroute.json
 */
export function registerReportCommand(program: Command) {
  program
    .command('report')
    .description(
      `a report of the ledger (read-only, with or without a daemon): ${availableReports().join(', ')}`,
    )
    .argument('<name>', `the report: ${availableReports().join(', ')}`, parseReportName)
    .option('--config <file>', 'stockroute.json whose ledger to read (no secrets needed)', 'stockroute.json')
    .option('--chain <id>', 'only this chain', parseChainId)
    .option('--ticker <ticker>', 'only this ticker', parseTicker)
    .option('--strategy <id>', "only this strategy's executions and fills", parseStrategyOption)
    .option(
      '--since <time>',
      'from this time on: ISO 8601 (2026-11-25T10:00Z) or an age (30m, 6h, 2d)',
      parseTimeOption,
    )
    .option('--until <time>', 'before this time: ISO 8601 or an age (30m, 6h, 2d)', parseTimeOption)
    .option('--table <key>', 'only this table of the report (its key, as in the JSON output)')
    .option(
      '--limit <n>',
      `executions and fills: list the newest N selected (default ${defaultListLimit}); counts and sums cover all`,
      parsePositiveInteger,
    )
    .option('--all', 'executions and fills: list every row selected (slower on a large ledger)')
    .option('--offline', 'price open positions at their last fill, without asking the service')
    .option('--json', 'print the report as JSON on stdout')
    .option(
      '--csv <file>',
      'write CSV: FILE (one table) or FILE-<key>.csv per table; - for stdout (one table)',
    )
    .option('--html <file>', 'write one self-contained HTML page with charts')
    .exitOverride(exitWithUsageCode)
    .action(async (name: string, options: ReportOptions) => {
      try {
        await runReportCommand(name, options)
      } catch (error) {
        if (!(error instanceof ReportUsageError)) throw error
        process.stderr.write(`${formatCliError(error)}\n`)
        process.exitCode = usageExitCode
      }
    })
}

/** A report command line that cannot be run as written: exit code 2. */
class ReportUsageError extends StockrouteError {
  override name = 'ReportUsageError'
  declare readonly code: 'INVALID_OPTIONS'
  constructor(shortMessage: string, remedy?: string) {
    super({ code: 'INVALID_OPTIONS', shortMessage, remedy })
  }
}

/** The reports that value open positions at a price (unrealized PnL). */
const pricedReports: ReadonlySet<string> = new Set(['summary', 'positions', 'pnl'])

async function runReportCommand(name: string, options: ReportOptions): Promise<void> {
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
    process.stdout.write(renderReportText(report))
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

function parseReportName(text: string): string {
  const names: readonly string[] = availableReports()
  if (!names.includes(text))
    throw new InvalidArgumentError(`there is no report "${text}": the reports are ${names.join(', ')}`)
  return text
}

/** Commander's exit: usage errors with code 2, help and version with 0, the rest as commander says. */
function exitWithUsageCode(error: CommanderError): never {
  process.exit(usageErrorCodes.has(error.code) ? usageExitCode : error.exitCode)
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
