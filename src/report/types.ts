import type { FxRates } from '@stockroute/client/domain/quotePrice.js'
import type Database from 'better-sqlite3'
import type { Ledger } from '../store/openLedger.js'

// The shape every report has, so that one set of renderers (terminal table, JSON, CSV, HTML) and
// one CLI command serve them all. A report reads the ledger and never writes it.

/** The reports `stockroute report <name>` makes. */
export const reportNames = [
  'summary',
  'positions',
  'pnl',
  'executions',
  'fills',
  'income',
  'latency',
  'strategies',
] as const
export type ReportName = (typeof reportNames)[number]

/**
 * The rows the list tables (every execution, every fill) hold unless asked for all: the newest
 * thousand read on a terminal and keep a report on a million fills under a second.
 */
export const defaultListLimit = 1000

/** Narrows every report; each field is optional. Times are Unix ms, `until` exclusive. */
export type ReportFilter = {
  chainId?: number | undefined
  ticker?: string | undefined
  strategy?: string | undefined
  sinceMs?: number | undefined
  untilMs?: number | undefined
  /**
   * The list tables (every execution, every fill) hold the newest `limit` rows the filter selects;
   * undefined: all. Counts and sums always cover the whole selection.
   */
  limit?: number | undefined
}

/**
 * How a column's values read. Amounts are decimal strings already in the asset's or token's own
 * units (never base units), so JSON and CSV carry what a person reads and a bigint never becomes
 * a float; `unit` names the unit ('USDC', 'shares', 'HKD').
 */
export type ReportColumn = {
  key: string
  title: string
  kind: 'text' | 'integer' | 'decimal' | 'percent' | 'time' | 'ms'
  /** For decimal columns: the unit of every value, when the whole column shares one. */
  unit?: string | undefined
  /**
   * A detail column: the terminal table shows it only when asked for the full width (`--wide`),
   * so that the rest fits 120 columns. JSON, CSV and HTML always carry every column.
   */
  wide?: true | undefined
}

export type ReportValue = string | number | null

/** One table of a report: a summary has several, most reports one. */
export type ReportTable = {
  /** Stable key (`positions`, `pnl_by_day`), used as the CSV file suffix and the JSON field. */
  key: string
  title: string
  columns: readonly ReportColumn[]
  rows: readonly Readonly<Record<string, ReportValue>>[]
}

/** A report as every renderer takes it. */
export type Report = {
  name: ReportName
  /** ISO 8601. */
  generatedAt: string
  filter: ReportFilter
  tables: readonly ReportTable[]
  /** Method and caveats a reader must know (average cost, unrealized at the last fill when offline…). */
  notes: readonly string[]
  /**
   * The names of the ledgers a report over several merged (`stockroute report --ledger A --ledger B`),
   * in the order given; absent for a report of one ledger.
   */
  ledgers?: readonly string[] | undefined
}

/** Latest market prices for unrealized PnL, when the caller could fetch them; absent offline. */
export type MarketPriceBook = ReadonlyMap<
  string /* `${exchange}:${ticker}` */,
  { price: string /* market currency, decimal */; currency: string; atMs: number }
>

/** What a report reads: the ledger (opened read-only by the CLI), and optional live prices. */
export type ReportContext = {
  ledger: Pick<Ledger, 'database'>
  now: () => number
  marketPrices?: MarketPriceBook | undefined
  /**
   * Asset units per unit of each market's currency, as the engine compared quotes with the market
   * (the config's `execution.fxRates`); absent: the engine's defaults. Used by the fills report.
   */
  fxRates?: FxRates | undefined
  /**
   * The size of each configured TWAP, strategy id → shares in ShareToken base units (1e18 per
   * share), for the strategies report's remaining shares; absent: not known (left empty).
   */
  twapOrders?: ReadonlyMap<string, bigint> | undefined
}

/**
 * One ledger of a report over several: the name its rows carry (column `ledger`), and its file's
 * path for the report's first note when the name is not the path.
 */
export type ReportLedger = { name: string; path?: string | undefined; database: Database.Database }

/**
 * A report in three steps, so that it can read several ledgers (src/report/acrossLedgers.ts):
 * `collect` reads one ledger into exact data (amounts as bigints, the rows of its lists tagged with
 * `ledger` when it is one of several), `merge` folds the data of several ledgers into what one
 * report shows (counts and amounts added, lists interleaved in the order one ledger lists them),
 * `render` makes the report. Each report defines its three next to its query
 * (./queries/<name>.ts), and its query of one ledger is `render(collect(…))` (latency's reads its
 * percentiles by rank instead: merged, it sorts every ledger's durations together).
 */
export type ReportKind<Data> = {
  collect(context: ReportContext, filter: ReportFilter, ledger?: string): Data
  merge(parts: readonly Data[], filter: ReportFilter): Data
  render(data: Data, context: ReportRenderContext, filter: ReportFilter, ledgers?: readonly string[]): Report
}

/** What rendering a report needs of its context: no ledger (its data was read already). */
export type ReportRenderContext = Omit<ReportContext, 'ledger'>
