import type Database from 'better-sqlite3'
import type { PositionState } from '../../store/index.js'
import {
  addStepToRows,
  amountOfLimbs,
  type LedgerDayRow,
  type LedgerDayStep,
  utcDayOf,
} from '../../store/ledgerDays.js'
import { type PositionRow, stateOfRow } from '../../store/positionRows.js'
import type { ReportFilter } from '../types.js'
import { tokenScope, tokensOfTicker } from './tokenScope.js'

// The daily figures a filter selects: whole UTC days from `ledger_days` (written with each fill),
// and the steps of a day the filter cuts (since or until inside it) summed from their own rows, so
// a report reads thousands of rows for any range instead of every fill.

const dayMs = 86_400_000

type EdgeFillRow = {
  chain_id: number
  stock_token: string
  asset_token: string
  asset_decimals: number
  is_buy: number
  amount_in: string
  amount_out: string
  fee_amount: string
  block_time: number
  realized_pnl: string
  slippage_vs_quote_cbps: number | null
  slippage_vs_market_cbps: number | null
  strategy: string | null
}

/** Whether a token (chain, address) is in the filter's scope. */
type TokenInScope = (chainId: number, tokenAddress: string) => boolean

/**
 * The whole UTC days of a filter's time range, [firstDay, endDay) (undefined: unbounded), whether
 * it holds none, and the parts of days it cuts ([fromMs, toMs) each).
 */
type DaySpan = {
  firstDay: number | undefined
  endDay: number | undefined
  noWholeDay: boolean
  cuts: [number, number][]
}

/** A WHERE clause on `ledger_days` and its parameters. */
type WholeDayConditions = { where: string; params: Record<string, string | number> }

/** What a report groups the daily figures by, beside the chain and asset (always). */
export type DayGrouping = { day?: boolean; strategy?: boolean; token?: boolean }

/** The daily figures of one group, amounts in asset base units. */
export type DaySums = {
  chainId: number
  assetToken: string
  assetDecimals: number
  /** With `day`. */
  day: string
  /** With `strategy`: whether the group is corporate actions, and the fills' strategy ('' none). */
  corporateAction: boolean
  strategy: string
  /** With `token`. */
  tokenAddress: string
  realized: bigint
  fees: bigint
  bought: bigint
  sold: bigint
  buys: number
  sells: number
  corporateActions: number
  quoteSlippageCbps: bigint
  quoteSlippageFills: number
  marketSlippageCbps: bigint
  marketSlippageFills: number
  worstMarketSlippageCbps: number | null
  firstAtMs: number
  lastAtMs: number
}

/** The grouped daily figures of a filter (one list per grouping asked), with the positions in scope. */
export type SelectedLedgerDays = {
  sums: DaySums[][]
  /** The current positions of the tokens in scope (chain and ticker; strategy and time do not narrow them). */
  positions: PositionState[]
}

/**
 * The daily figures of a filter, summed in SQLite per chain and asset and the groups asked for:
 * chain, ticker (current or former: see {@link tokenScope}), strategy (its fills only: no corporate
 * actions) and time (fills by block time, adjustments and renames by recording time; since
 * inclusive, until exclusive). Whole days come from `ledger_days`; the part of a day the filter
 * cuts is summed from its own fills, adjustments and renames.
 *
 * @example
 * const { sums: [byDay] } = selectLedgerDays(ledger.database, { chainId: 31337 }, [{ day: true }])
 * byDay.map((group) => [group.day, group.realized])
 */
export function selectLedgerDays(
  database: Database.Database,
  filter: ReportFilter,
  groupings: readonly DayGrouping[],
): SelectedLedgerDays {
  const tokens = filter.ticker === undefined ? undefined : tokensOfTicker(database, filter.ticker)
  const inScope = tokenScope(database, filter) ?? (() => true)
  const positions = positionsInScope(database, filter, inScope)
  const span = daySpanOf(filter)
  const cutRows = cutDayRows(database, filter, span.cuts, positions, inScope)
  const wholeDays =
    span.noWholeDay || tokens?.length === 0 ? undefined : wholeDayConditions(filter, tokens, span)
  const sums = groupings.map((grouping) => {
    const groups = new Map<string, DaySums>()
    if (wholeDays !== undefined)
      for (const row of selectWholeDays(database, wholeDays, grouping))
        mergeSums(groups, grouping, sumsOfStored(row))
    for (const row of cutRows.values()) mergeSums(groups, grouping, sumsOfRow(row))
    return [...groups.values()]
  })
  return { sums, positions }
}

/** The current positions of the tokens in scope (chain and ticker). */
function positionsInScope(
  database: Database.Database,
  filter: ReportFilter,
  inScope: TokenInScope,
): PositionState[] {
  return database
    .prepare<Record<string, number>, PositionRow>(
      `SELECT * FROM positions ${filter.chainId === undefined ? '' : 'WHERE chain_id = @chain_id'}`,
    )
    .all(filter.chainId === undefined ? {} : { chain_id: filter.chainId })
    .filter((row) => inScope(row.chain_id, row.token_address))
    .map(stateOfRow)
}

/** Which whole days a filter's time range holds, and the parts of days it cuts. */
function daySpanOf(filter: ReportFilter): DaySpan {
  const since = filter.sinceMs
  const until = filter.untilMs
  // Whole days: [firstDay, endDay); the parts of cut days are summed from their steps.
  const firstDay = since === undefined ? undefined : Math.ceil(since / dayMs) * dayMs
  const endDay = until === undefined ? undefined : Math.floor(until / dayMs) * dayMs
  const noWholeDay = firstDay !== undefined && endDay !== undefined && firstDay >= endDay
  const cuts: [number, number][] = []
  if (noWholeDay) {
    if (since !== undefined && until !== undefined && since < until) cuts.push([since, until])
  } else {
    if (since !== undefined && firstDay !== undefined && since < firstDay) cuts.push([since, firstDay])
    if (until !== undefined && endDay !== undefined && endDay < until) cuts.push([endDay, until])
  }
  return { firstDay, endDay, noWholeDay, cuts }
}

/** The day rows of the cut parts of days, summed in memory from their fills, adjustments and renames. */
function cutDayRows(
  database: Database.Database,
  filter: ReportFilter,
  cuts: readonly [number, number][],
  positions: readonly PositionState[],
  inScope: TokenInScope,
): Map<string, LedgerDayRow> {
  const cutRows = new Map<string, LedgerDayRow>()
  if (cuts.length > 0) {
    const assets = new Map(
      positions.map((position) => [`${position.chainId}:${position.tokenAddress}`, position]),
    )
    for (const [fromMs, toMs] of cuts)
      for (const step of stepsBetween(database, filter, fromMs, toMs, assets))
        if (inScope(step.chainId, step.tokenAddress)) addStepToRows(cutRows, step)
  }
  return cutRows
}

/** The WHERE clause and parameters of the whole days on `ledger_days`: chain, tokens, days, strategy. */
function wholeDayConditions(
  filter: ReportFilter,
  tokens: readonly { chain_id: number; token_address: string }[] | undefined,
  span: DaySpan,
): WholeDayConditions {
  const conditions: string[] = []
  const params: Record<string, string | number> = {}
  if (filter.chainId !== undefined) {
    conditions.push('chain_id = @chain_id')
    params.chain_id = filter.chainId
  }
  if (tokens !== undefined) {
    conditions.push(
      `(${tokens.map((_, index) => `(chain_id = @token_chain_${index} AND token_address = @token_${index})`).join(' OR ')})`,
    )
    tokens.forEach((token, index) => {
      params[`token_chain_${index}`] = token.chain_id
      params[`token_${index}`] = token.token_address
    })
  }
  if (span.firstDay !== undefined) {
    conditions.push('day >= @first_day')
    params.first_day = utcDayOf(span.firstDay)
  }
  if (span.endDay !== undefined) {
    conditions.push('day < @end_day')
    params.end_day = utcDayOf(span.endDay)
  }
  if (filter.strategy !== undefined) {
    conditions.push('corporate_action = 0 AND strategy = @strategy')
    params.strategy = filter.strategy
  }
  return { where: conditions.length === 0 ? '1' : conditions.join(' AND '), params }
}

/** The columns a grouping groups `ledger_days` by. */
function groupColumns(grouping: DayGrouping): string[] {
  return [
    'chain_id',
    'asset_token',
    ...(grouping.day ? ['day'] : []),
    ...(grouping.strategy ? ['corporate_action', 'strategy'] : []),
    ...(grouping.token ? ['token_address'] : []),
  ]
}

/** The whole days' figures, summed in SQLite per group (safe integers: every integer a bigint). */
function selectWholeDays(
  database: Database.Database,
  { where, params }: WholeDayConditions,
  grouping: DayGrouping,
): Record<string, bigint | string | null>[] {
  const keyColumns = groupColumns(grouping)
  return database
    .prepare<Record<string, string | number>, Record<string, bigint | string | null>>(
      `SELECT ${keyColumns.join(', ')}, max(asset_decimals) AS asset_decimals,
         sum(realized_high) AS realized_high, sum(realized_low) AS realized_low,
         sum(fees_high) AS fees_high, sum(fees_low) AS fees_low,
         sum(bought_high) AS bought_high, sum(bought_low) AS bought_low,
         sum(sold_high) AS sold_high, sum(sold_low) AS sold_low,
         sum(buys) AS buys, sum(sells) AS sells, sum(corporate_actions) AS corporate_actions,
         sum(quote_slippage_cbps) AS quote_slippage_cbps, sum(quote_slippage_fills) AS quote_slippage_fills,
         sum(market_slippage_cbps) AS market_slippage_cbps, sum(market_slippage_fills) AS market_slippage_fills,
         max(worst_market_slippage_cbps) AS worst_market_slippage_cbps,
         min(first_at_ms) AS first_at_ms, max(last_at_ms) AS last_at_ms
       FROM ledger_days WHERE ${where}
       GROUP BY ${keyColumns.join(', ')}`,
    )
    .safeIntegers(true)
    .all(params)
}

/** The key of the group `sums` belongs to under `grouping`. */
function groupKeyOf(grouping: DayGrouping, sums: DaySums): string {
  return [
    sums.chainId,
    sums.assetToken,
    grouping.day ? sums.day : '',
    grouping.strategy ? `${sums.corporateAction}|${sums.strategy}` : '',
    grouping.token ? sums.tokenAddress : '',
  ].join('|')
}

/** Adds `sums` to its group in `groups` (the first of a group becomes it). */
function mergeSums(groups: Map<string, DaySums>, grouping: DayGrouping, sums: DaySums): void {
  const key = groupKeyOf(grouping, sums)
  const into = groups.get(key)
  if (into) addSums(into, sums)
  else groups.set(key, sums)
}

/** Adds `sums` into `into`: counts and amounts summed, the worst slippage and the time span widened. */
function addSums(into: DaySums, sums: DaySums): void {
  into.realized += sums.realized
  into.fees += sums.fees
  into.bought += sums.bought
  into.sold += sums.sold
  into.buys += sums.buys
  into.sells += sums.sells
  into.corporateActions += sums.corporateActions
  into.quoteSlippageCbps += sums.quoteSlippageCbps
  into.quoteSlippageFills += sums.quoteSlippageFills
  into.marketSlippageCbps += sums.marketSlippageCbps
  into.marketSlippageFills += sums.marketSlippageFills
  if (sums.worstMarketSlippageCbps !== null)
    into.worstMarketSlippageCbps = Math.max(
      into.worstMarketSlippageCbps ?? sums.worstMarketSlippageCbps,
      sums.worstMarketSlippageCbps,
    )
  into.firstAtMs = Math.min(into.firstAtMs, sums.firstAtMs)
  into.lastAtMs = Math.max(into.lastAtMs, sums.lastAtMs)
}

/** A grouped row of SQLite (safe integers: every integer a bigint) as sums; absent group columns empty. */
function sumsOfStored(row: Record<string, bigint | string | null>): DaySums {
  const count = (key: string) => Number(row[key] ?? 0n)
  const big = (key: string) => BigInt(row[key] ?? 0n)
  return {
    chainId: count('chain_id'),
    assetToken: String(row.asset_token),
    assetDecimals: count('asset_decimals'),
    day: row.day === undefined ? '' : String(row.day),
    corporateAction: row.corporate_action === 1n,
    strategy: row.strategy === undefined ? '' : String(row.strategy),
    tokenAddress: row.token_address === undefined ? '' : String(row.token_address),
    realized: amountOfLimbs(big('realized_high'), big('realized_low')),
    fees: amountOfLimbs(big('fees_high'), big('fees_low')),
    bought: amountOfLimbs(big('bought_high'), big('bought_low')),
    sold: amountOfLimbs(big('sold_high'), big('sold_low')),
    buys: count('buys'),
    sells: count('sells'),
    corporateActions: count('corporate_actions'),
    quoteSlippageCbps: big('quote_slippage_cbps'),
    quoteSlippageFills: count('quote_slippage_fills'),
    marketSlippageCbps: big('market_slippage_cbps'),
    marketSlippageFills: count('market_slippage_fills'),
    worstMarketSlippageCbps:
      row.worst_market_slippage_cbps === null ? null : count('worst_market_slippage_cbps'),
    firstAtMs: count('first_at_ms'),
    lastAtMs: count('last_at_ms'),
  }
}

/** An in-memory day row (of a cut day) as sums. */
function sumsOfRow(row: LedgerDayRow): DaySums {
  return {
    chainId: row.chain_id,
    assetToken: row.asset_token,
    assetDecimals: row.asset_decimals,
    day: row.day,
    corporateAction: row.corporate_action === 1,
    strategy: row.strategy,
    tokenAddress: row.token_address,
    realized: row.realized,
    fees: row.fees,
    bought: row.bought,
    sold: row.sold,
    buys: row.buys,
    sells: row.sells,
    corporateActions: row.corporate_actions,
    quoteSlippageCbps: BigInt(row.quote_slippage_cbps),
    quoteSlippageFills: row.quote_slippage_fills,
    marketSlippageCbps: BigInt(row.market_slippage_cbps),
    marketSlippageFills: row.market_slippage_fills,
    worstMarketSlippageCbps: row.worst_market_slippage_cbps,
    firstAtMs: row.first_at_ms,
    lastAtMs: row.last_at_ms,
  }
}

/** The fills, adjustments and renames in [fromMs, toMs), as daily-figure steps. */
function stepsBetween(
  database: Database.Database,
  filter: ReportFilter,
  fromMs: number,
  toMs: number,
  positions: Map<string, PositionState>,
): LedgerDayStep[] {
  const chain = filter.chainId === undefined ? '' : 'AND f.chain_id = @chain_id'
  const strategy = filter.strategy === undefined ? '' : 'AND e.strategy = @strategy'
  const parameters = {
    from_s: Math.ceil(fromMs / 1000),
    to_s: Math.ceil(toMs / 1000),
    ...(filter.chainId === undefined ? {} : { chain_id: filter.chainId }),
    ...(filter.strategy === undefined ? {} : { strategy: filter.strategy }),
  }
  const steps: LedgerDayStep[] = database
    .prepare<Record<string, string | number>, EdgeFillRow>(
      `SELECT f.chain_id, f.stock_token, f.asset_token, f.asset_decimals, f.is_buy, f.amount_in, f.amount_out,
         f.fee_amount, f.block_time, f.realized_pnl, f.slippage_vs_quote_cbps, f.slippage_vs_market_cbps, e.strategy
       FROM fills f LEFT JOIN executions e ON e.id = f.execution_id
       WHERE f.reversed_at_ms IS NULL AND f.block_time >= @from_s AND f.block_time < @to_s ${chain} ${strategy}`,
    )
    .all(parameters)
    .map((row) => ({
      chainId: row.chain_id,
      tokenAddress: row.stock_token,
      atMs: row.block_time * 1000,
      corporateAction: false,
      strategy: row.strategy,
      assetToken: row.asset_token,
      assetDecimals: row.asset_decimals,
      realized: BigInt(row.realized_pnl),
      fee: BigInt(row.fee_amount),
      assetAmount: BigInt(row.is_buy === 1 ? row.amount_in : row.amount_out),
      isBuy: row.is_buy === 1,
      quoteSlippageCbps: row.slippage_vs_quote_cbps,
      marketSlippageCbps: row.slippage_vs_market_cbps,
    }))
  // Corporate actions belong to no strategy: a strategy filter leaves them out.
  if (filter.strategy !== undefined) return steps
  const corporate = database
    .prepare<
      Record<string, number>,
      { chain_id: number; token_address: string; realized_pnl: string; at: number }
    >(
      `SELECT chain_id, token_address, realized_pnl, recorded_at_ms AS at FROM position_adjustments
         WHERE recorded_at_ms >= @from_ms AND recorded_at_ms < @to_ms ${filter.chainId === undefined ? '' : 'AND chain_id = @chain_id'}
       UNION ALL
       SELECT chain_id, token_address, '0', recorded_at_ms FROM position_renames
         WHERE recorded_at_ms >= @from_ms AND recorded_at_ms < @to_ms ${filter.chainId === undefined ? '' : 'AND chain_id = @chain_id'}`,
    )
    .all({
      from_ms: fromMs,
      to_ms: toMs,
      ...(filter.chainId === undefined ? {} : { chain_id: filter.chainId }),
    })
  for (const row of corporate) {
    const position = positions.get(`${row.chain_id}:${row.token_address}`)
    if (!position) continue
    steps.push({
      chainId: row.chain_id,
      tokenAddress: row.token_address,
      atMs: row.at,
      corporateAction: true,
      strategy: null,
      assetToken: position.assetToken,
      assetDecimals: position.assetDecimals,
      realized: BigInt(row.realized_pnl),
      fee: 0n,
      assetAmount: 0n,
      isBuy: false,
      quoteSlippageCbps: null,
      marketSlippageCbps: null,
    })
  }
  return steps
}
