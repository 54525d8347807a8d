import type Database from 'better-sqlite3'
import type { PositionEntry, PositionState } from './positionAccounting.js'

// The daily figures of the ledger (`ledger_days`, migration 7): per UTC day, chain, token and
// strategy, what the reports sum (realized PnL, fees, notional, counts, slippage). Written by the
// position writer in the transaction of each fill, adjustment and rename, and rebuilt whole with
// the positions after a reorg, so a report reads a few thousand rows instead of replaying every fill.

/** One fill, corporate action or rename as the daily figures count it. */
export type LedgerDayStep = {
  chainId: number
  tokenAddress: string
  /** Fills: block time × 1000; adjustments and renames: when the ledger recorded them. */
  atMs: number
  /** False for fills; true for adjustments and renames. */
  corporateAction: boolean
  /** The strategy of a fill's execution; null without one (and for corporate actions). */
  strategy: string | null
  assetToken: string
  assetDecimals: number
  /** Asset base units the step realized (signed). */
  realized: bigint
  /** Fills: fee in asset base units; 0 otherwise. */
  fee: bigint
  /** Fills: asset paid (buy) or received (sell); 0 otherwise. */
  assetAmount: bigint
  isBuy: boolean
  /** Fills: slippage in hundredths of a basis point, null when it has none. */
  quoteSlippageCbps: number | null
  marketSlippageCbps: number | null
}

/** The sums of `ledger_days` in asset base units (stored as two exact integers each: see `limbsOf`). */
export const ledgerDayAmounts = ['realized', 'fees', 'bought', 'sold'] as const

/** A row of `ledger_days`, its amounts as bigints. */
export type LedgerDayRow = {
  chain_id: number
  token_address: string
  day: string
  corporate_action: 0 | 1
  /** '' for fills without a strategy and for corporate actions. */
  strategy: string
  asset_token: string
  asset_decimals: number
  realized: bigint
  fees: bigint
  bought: bigint
  sold: bigint
  buys: number
  sells: number
  corporate_actions: number
  quote_slippage_cbps: number
  quote_slippage_fills: number
  market_slippage_cbps: number
  market_slippage_fills: number
  worst_market_slippage_cbps: number | null
  first_at_ms: number
  last_at_ms: number
}

/**
 * Amounts are stored as `high · 10^12 + low` with `0 <= low < 10^12`, two SQLite integers: SQL then
 * sums them exactly (a report groups a hundred thousand days in SQLite, not in JavaScript), where a
 * uint256 in TEXT cannot be summed and a REAL would round.
 */
export const limbBase = 10n ** 12n

/** An amount's two stored integers. */
export function limbsOf(value: bigint): [high: bigint, low: bigint] {
  const low = ((value % limbBase) + limbBase) % limbBase
  return [(value - low) / limbBase, low]
}

/** The amount of two stored integers (or of their sums over rows). */
export const amountOfLimbs = (high: bigint | number, low: bigint | number): bigint =>
  BigInt(high) * limbBase + BigInt(low)

/** The UTC day (`YYYY-MM-DD`) of a time in ms. */
export const utcDayOf = (atMs: number): string => new Date(atMs).toISOString().slice(0, 10)

/** The empty row a step starts. */
function emptyRow(step: LedgerDayStep): LedgerDayRow {
  return {
    chain_id: step.chainId,
    token_address: step.tokenAddress,
    day: utcDayOf(step.atMs),
    corporate_action: step.corporateAction ? 1 : 0,
    strategy: step.corporateAction ? '' : (step.strategy ?? ''),
    asset_token: step.assetToken,
    asset_decimals: step.assetDecimals,
    realized: 0n,
    fees: 0n,
    bought: 0n,
    sold: 0n,
    buys: 0,
    sells: 0,
    corporate_actions: 0,
    quote_slippage_cbps: 0,
    quote_slippage_fills: 0,
    market_slippage_cbps: 0,
    market_slippage_fills: 0,
    worst_market_slippage_cbps: null,
    first_at_ms: step.atMs,
    last_at_ms: step.atMs,
  }
}

/** Adds one step to its row (in place). */
export function addStepToRow(row: LedgerDayRow, step: LedgerDayStep): LedgerDayRow {
  row.realized += step.realized
  // The asset of a position follows its latest step (a transfer may name it first).
  row.asset_token = step.assetToken
  row.asset_decimals = step.assetDecimals
  row.first_at_ms = Math.min(row.first_at_ms, step.atMs)
  row.last_at_ms = Math.max(row.last_at_ms, step.atMs)
  if (step.corporateAction) {
    row.corporate_actions += 1
    return row
  }
  row.fees += step.fee
  if (step.isBuy) {
    row.bought += step.assetAmount
    row.buys += 1
  } else {
    row.sold += step.assetAmount
    row.sells += 1
  }
  if (step.quoteSlippageCbps !== null) {
    row.quote_slippage_cbps += step.quoteSlippageCbps
    row.quote_slippage_fills += 1
  }
  if (step.marketSlippageCbps !== null) {
    row.market_slippage_cbps += step.marketSlippageCbps
    row.market_slippage_fills += 1
    row.worst_market_slippage_cbps = Math.max(
      row.worst_market_slippage_cbps ?? step.marketSlippageCbps,
      step.marketSlippageCbps,
    )
  }
  return row
}

/** The key of a step's row. */
export const ledgerDayKey = (step: LedgerDayStep): string =>
  `${step.chainId}|${step.tokenAddress}|${utcDayOf(step.atMs)}|${step.corporateAction ? 1 : 0}|${step.corporateAction ? '' : (step.strategy ?? '')}`

/**
 * The statements that keep `ledger_days`: `add` folds one step into its row (call inside the
 * step's write transaction); `replaceAll` rewrites the table from rows computed elsewhere.
 *
 * @example
 * const days = ledgerDaysWriter(db)
 * days.add({ chainId: 31337, tokenAddress, atMs, corporateAction: false, strategy: 'dca', … })
 */
export function ledgerDaysWriter(db: Database.Database) {
  const select = db
    .prepare<[number, string, string, number, string], StoredDayRow>(
      `SELECT * FROM ledger_days WHERE chain_id = ? AND token_address = ? AND day = ? AND corporate_action = ?
       AND strategy = ?`,
    )
    .safeIntegers(true)
  const upsert = db.prepare<[StoredDayRow]>(
    `INSERT OR REPLACE INTO ledger_days (chain_id, token_address, day, corporate_action, strategy, asset_token,
       asset_decimals, realized_high, realized_low, fees_high, fees_low, bought_high, bought_low, sold_high, sold_low,
       buys, sells, corporate_actions, quote_slippage_cbps, quote_slippage_fills, market_slippage_cbps,
       market_slippage_fills, worst_market_slippage_cbps, first_at_ms, last_at_ms)
     VALUES (@chain_id, @token_address, @day, @corporate_action, @strategy, @asset_token, @asset_decimals,
       @realized_high, @realized_low, @fees_high, @fees_low, @bought_high, @bought_low, @sold_high, @sold_low,
       @buys, @sells, @corporate_actions, @quote_slippage_cbps, @quote_slippage_fills, @market_slippage_cbps,
       @market_slippage_fills, @worst_market_slippage_cbps, @first_at_ms, @last_at_ms)`,
  )
  const clear = db.prepare('DELETE FROM ledger_days')
  return {
    add(step: LedgerDayStep) {
      const fresh = emptyRow(step)
      const existing = select.get(
        fresh.chain_id,
        fresh.token_address,
        fresh.day,
        fresh.corporate_action,
        fresh.strategy,
      )
      upsert.run(storedOf(addStepToRow(existing ? rowOfStored(existing) : fresh, step)))
    },
    replaceAll(rows: Iterable<LedgerDayRow>) {
      clear.run()
      for (const row of rows) upsert.run(storedOf(row))
    },
  }
}

/** A row as SQLite holds it (read with safe integers: every integer a bigint). */
type StoredDayRow = Record<string, string | bigint | number | null>

function storedOf(row: LedgerDayRow): StoredDayRow {
  const stored: StoredDayRow = { ...row }
  for (const amount of ledgerDayAmounts) {
    const [high, low] = limbsOf(row[amount])
    delete stored[amount]
    stored[`${amount}_high`] = high
    stored[`${amount}_low`] = low
  }
  return stored
}

function rowOfStored(stored: StoredDayRow): LedgerDayRow {
  const number = (key: string) => (stored[key] === null ? null : Number(stored[key]))
  return {
    chain_id: Number(stored.chain_id),
    token_address: String(stored.token_address),
    day: String(stored.day),
    corporate_action: Number(stored.corporate_action) === 1 ? 1 : 0,
    strategy: String(stored.strategy),
    asset_token: String(stored.asset_token),
    asset_decimals: Number(stored.asset_decimals),
    realized: amountOfLimbs(stored.realized_high as bigint, stored.realized_low as bigint),
    fees: amountOfLimbs(stored.fees_high as bigint, stored.fees_low as bigint),
    bought: amountOfLimbs(stored.bought_high as bigint, stored.bought_low as bigint),
    sold: amountOfLimbs(stored.sold_high as bigint, stored.sold_low as bigint),
    buys: Number(stored.buys),
    sells: Number(stored.sells),
    corporate_actions: Number(stored.corporate_actions),
    quote_slippage_cbps: Number(stored.quote_slippage_cbps),
    quote_slippage_fills: Number(stored.quote_slippage_fills),
    market_slippage_cbps: Number(stored.market_slippage_cbps),
    market_slippage_fills: Number(stored.market_slippage_fills),
    worst_market_slippage_cbps: number('worst_market_slippage_cbps'),
    first_at_ms: Number(stored.first_at_ms),
    last_at_ms: Number(stored.last_at_ms),
  }
}

/**
 * Folds steps into rows in memory, for a rebuild.
 *
 * @example
 * const rows = new Map(); addStepToRows(rows, step); ledgerDaysWriter(db).replaceAll(rows.values())
 */
export function addStepToRows(rows: Map<string, LedgerDayRow>, step: LedgerDayStep): void {
  const key = ledgerDayKey(step)
  const row = rows.get(key) ?? emptyRow(step)
  rows.set(key, addStepToRow(row, step))
}

/** What a step is attributed to, beside what the position fold computes. */
export type StepAttribution = {
  atMs: number
  strategy: string | null
  fee: bigint
  quoteSlippageCbps: number | null
  marketSlippageCbps: number | null
}

/** Attribution of a step without fee, strategy or slippage (adjustments, renames). */
export const corporateActionAttribution = (atMs: number): StepAttribution => ({
  atMs,
  strategy: null,
  fee: 0n,
  quoteSlippageCbps: null,
  marketSlippageCbps: null,
})

/**
 * The daily-figures step of one entry of the position fold, from the position before and after it.
 *
 * @example
 * const after = applyPositionEntry(before, entry)
 * days.add(dayStepOf(entry, before, after, attribution))
 */
export function dayStepOf(
  entry: PositionEntry,
  before: PositionState | undefined,
  after: PositionState,
  attribution: StepAttribution,
): LedgerDayStep {
  const fill = entry.kind === 'fill' ? entry : undefined
  return {
    chainId: entry.chainId,
    tokenAddress: entry.tokenAddress,
    atMs: attribution.atMs,
    corporateAction: fill === undefined,
    strategy: fill === undefined ? null : attribution.strategy,
    assetToken: after.assetToken,
    assetDecimals: after.assetDecimals,
    realized: after.realizedPnl - (before?.realizedPnl ?? 0n),
    fee: fill === undefined ? 0n : attribution.fee,
    assetAmount: fill?.assetAmount ?? 0n,
    isBuy: fill?.isBuy ?? false,
    quoteSlippageCbps: fill === undefined ? null : attribution.quoteSlippageCbps,
    marketSlippageCbps: fill === undefined ? null : attribution.marketSlippageCbps,
  }
}
