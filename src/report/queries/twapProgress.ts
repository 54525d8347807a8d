import {
  fillPriceInMarketCurrency,
  formatCentiBps,
  slippageVsMarketCentiBps,
} from '@stockroute/client/domain/fillSlippage.js'
import { marketCurrencies } from '@stockroute/client/domain/marketRules.js'
import { isExchangeCode, marketCodes } from '@stockroute/client/domain/markets.js'
import { defaultFxRates, type FxRates } from '@stockroute/client/domain/quotePrice.js'
import { formatPrice } from '@stockroute/client/domain/unitStrings.js'
import { type Price, shareDecimals } from '@stockroute/client/domain/units.js'
import type Database from 'better-sqlite3'
import { formatAmount } from '../formatAmount.js'
import type { ReportFilter } from '../types.js'

// The progress of TWAP (sliced order) strategies, from the ledger alone: the executions whose intent
// ids are a TWAP's (`twap:<id>:slice:<n>`, `twap:<id>:remainder`) and their live fills (a fill a
// reorg reversed does not count). Read by the
// strategies report (summed across ledgers) and by the control API (GET /v1/strategies).

const shareScale = 10n ** BigInt(shareDecimals)

/** What one ledger (or several, merged) holds of one TWAP: sums in base units. */
export type TwapProgressSums = {
  strategy: string
  chainId: number
  /** The StockToken's ticker (the remainder's ShareToken is this with `s`). */
  ticker: string
  exchange: number
  side: 'buy' | 'sell'
  /** Executions of its slices and remainder, in any state, and those confirmed. */
  executions: number
  confirmed: number
  fills: number
  /** Shares filled, ShareToken base units (1e18 per share; a StockToken fill counts its shares × 1e18). */
  filled: bigint
  /** Asset paid by the buys (fee included) or received by the sells (net of the fee), base units. */
  asset: bigint
  /** The asset's decimals; null before any fill. */
  assetDecimals: number | null
  /**
   * The order's arrival price: the market price the engine read when it quoted the first slice
   * (the lowest slice index whose execution recorded one), with that execution's FX rate.
   */
  arrival: { slice: number; createdAtMs: number; price: bigint; fxRate: bigint | null } | null
}

type ExecutionRow = {
  id: number
  intent_id: string
  strategy: string
  chain_id: number
  ticker: string
  exchange: number
  side: 'buy' | 'sell'
  state: string
  created_at_ms: number
  market_price: string | null
  market_fx_rate: string | null
}

type FillRow = {
  execution_id: number
  token_kind: 'stock' | 'share'
  is_buy: number
  amount_in: string
  amount_out: string
  asset_decimals: number
}

/** `slice` index, `remainder`, or undefined for an intent id that is not one of `strategy`'s TWAP ids. */
function twapPartOf(intentId: string, strategy: string): number | 'remainder' | undefined {
  const prefix = `twap:${strategy}:`
  if (!intentId.startsWith(prefix)) return undefined
  const rest = intentId.slice(prefix.length)
  if (rest === 'remainder') return 'remainder'
  const match = /^slice:([1-9]\d{0,8})$/.exec(rest)
  return match?.[1] === undefined ? undefined : Number(match[1])
}

/**
 * Every TWAP's progress in one ledger, per strategy and chain, ordered by strategy. The filter's
 * chain, strategy and ticker (the StockToken's: its ShareToken remainder counts too) apply; its
 * times do not (progress is of the whole order).
 *
 * @example
 * collectTwapProgress(ledger.database, { strategy: 'twap-0700' })
 * // [{ strategy: 'twap-0700', chainId: 31337, filled: 1000n * 10n ** 18n, asset: 53_790_100_000n, … }]
 */
export function collectTwapProgress(
  database: Database.Database,
  filter: Pick<ReportFilter, 'chainId' | 'strategy' | 'ticker'> = {},
): TwapProgressSums[] {
  const conditions = ["e.strategy IS NOT NULL AND e.intent_id GLOB 'twap:*'"]
  const params: Record<string, string | number> = {}
  if (filter.chainId !== undefined) {
    conditions.push('e.chain_id = @chain_id')
    params.chain_id = filter.chainId
  }
  if (filter.strategy !== undefined) {
    conditions.push('e.strategy = @strategy')
    params.strategy = filter.strategy
  }
  if (filter.ticker !== undefined) {
    conditions.push("(e.ticker = @ticker OR e.ticker = @ticker || 's')")
    params.ticker = filter.ticker
  }
  const where = conditions.join(' AND ')
  const executions = database
    .prepare<Record<string, string | number>, ExecutionRow>(
      `SELECT e.id, e.intent_id, e.strategy, e.chain_id, e.ticker, e.exchange, e.side, e.state,
         e.created_at_ms, e.market_price, e.market_fx_rate
       FROM executions e WHERE ${where} ORDER BY e.id`,
    )
    .all(params)
  const fills = database
    .prepare<Record<string, string | number>, FillRow>(
      `SELECT f.execution_id, f.token_kind, f.is_buy, f.amount_in, f.amount_out, f.asset_decimals
       FROM fills f JOIN executions e ON e.id = f.execution_id
       WHERE f.reversed_at_ms IS NULL AND ${where} ORDER BY f.id`,
    )
    .all(params)
  const fillsOf = new Map<number, FillRow[]>()
  for (const fill of fills) fillsOf.set(fill.execution_id, [...(fillsOf.get(fill.execution_id) ?? []), fill])
  const sums = new Map<string, TwapProgressSums>()
  for (const execution of executions) {
    const part = twapPartOf(execution.intent_id, execution.strategy)
    if (part === undefined) continue
    const key = `${execution.strategy}|${execution.chain_id}`
    let entry = sums.get(key)
    if (!entry) {
      entry = {
        strategy: execution.strategy,
        chainId: execution.chain_id,
        ticker: part === 'remainder' ? execution.ticker.replace(/s$/, '') : execution.ticker,
        exchange: execution.exchange,
        side: execution.side,
        executions: 0,
        confirmed: 0,
        fills: 0,
        filled: 0n,
        asset: 0n,
        assetDecimals: null,
        arrival: null,
      }
      sums.set(key, entry)
    }
    entry.executions += 1
    if (execution.state === 'confirmed') entry.confirmed += 1
    if (part !== 'remainder' && execution.market_price !== null) {
      const arrival = {
        slice: part,
        createdAtMs: execution.created_at_ms,
        price: BigInt(execution.market_price),
        fxRate: execution.market_fx_rate === null ? null : BigInt(execution.market_fx_rate),
      }
      if (BigInt(execution.market_price) > 0n && earlier(arrival, entry.arrival)) entry.arrival = arrival
    }
    for (const fill of fillsOf.get(execution.id) ?? []) {
      const isBuy = fill.is_buy === 1
      const stock = BigInt(isBuy ? fill.amount_out : fill.amount_in)
      entry.fills += 1
      entry.filled += fill.token_kind === 'share' ? stock : stock * shareScale
      entry.asset += BigInt(isBuy ? fill.amount_in : fill.amount_out)
      entry.assetDecimals = fill.asset_decimals
    }
  }
  return [...sums.values()].sort((a, b) =>
    a.strategy === b.strategy ? a.chainId - b.chainId : a.strategy < b.strategy ? -1 : 1,
  )
}

function earlier(
  candidate: NonNullable<TwapProgressSums['arrival']>,
  current: TwapProgressSums['arrival'],
): boolean {
  if (current === null) return true
  return candidate.slice === current.slice
    ? candidate.createdAtMs < current.createdAtMs
    : candidate.slice < current.slice
}

/**
 * The progress of several ledgers as one: per strategy and chain, counts, shares and asset added,
 * and the arrival price of the lowest slice that recorded one (the earliest, between equals).
 *
 * @example
 * mergeTwapProgress([collectTwapProgress(a), collectTwapProgress(b)])
 */
export function mergeTwapProgress(parts: readonly (readonly TwapProgressSums[])[]): TwapProgressSums[] {
  const merged = new Map<string, TwapProgressSums>()
  for (const entry of parts.flat()) {
    const key = `${entry.strategy}|${entry.chainId}`
    const current = merged.get(key)
    if (!current) {
      merged.set(key, { ...entry, arrival: entry.arrival === null ? null : { ...entry.arrival } })
      continue
    }
    current.executions += entry.executions
    current.confirmed += entry.confirmed
    current.fills += entry.fills
    current.filled += entry.filled
    current.asset += entry.asset
    current.assetDecimals ??= entry.assetDecimals
    if (entry.arrival !== null && earlier(entry.arrival, current.arrival))
      current.arrival = { ...entry.arrival }
  }
  return [...merged.values()].sort((a, b) =>
    a.strategy === b.strategy ? a.chainId - b.chainId : a.strategy < b.strategy ? -1 : 1,
  )
}

/** A TWAP's progress as a person reads it: decimal strings, prices in the market's currency. */
export type TwapFigures = {
  /** Shares filled, and the order's shares not filled yet (null when the order's size is not known). */
  filled: string
  ordered: string | null
  remaining: string | null
  /** USD, HKD or KRW: the currency of the prices. */
  currency: string
  /** Average fill price per share (fees included on buys, net of them on sells); null before a fill. */
  averagePrice: string | null
  /** The market price when the order started (the first slice's); null before it was quoted. */
  arrivalPrice: string | null
  /** The average fill price against the arrival price, basis points, positive: worse. */
  vsArrivalBps: string | null
}

/**
 * The figures of a TWAP's sums. `ordered` is the order's size in ShareToken base units (the
 * strategy's configuration), when known. The average price is converted to the market's currency
 * at the FX rate the arrival execution recorded (else `fxRates`, else the defaults).
 *
 * @example
 * twapFigures(sums, 1050n * 10n ** 18n)
 * // { filled: '1000', ordered: '1050', remaining: '50', currency: 'HKD', averagePrice: '418.6', … }
 */
export function twapFigures(
  sums: TwapProgressSums,
  ordered: bigint | undefined,
  fxRates: FxRates = defaultFxRates,
): TwapFigures {
  const market = isExchangeCode(sums.exchange) ? marketCodes[sums.exchange] : 'usex'
  const fxRate = sums.arrival?.fxRate ?? fxRates[market]
  const shares = (units: bigint) => formatAmount(units, shareDecimals)
  const fill =
    sums.filled > 0n && sums.assetDecimals !== null
      ? {
          isBuy: sums.side === 'buy',
          tokenKind: 'share' as const,
          assetDecimals: sums.assetDecimals,
          assetAmount: sums.asset,
          stockAmount: sums.filled,
        }
      : undefined
  return {
    filled: shares(sums.filled),
    ordered: ordered === undefined ? null : shares(ordered),
    remaining: ordered === undefined ? null : shares(ordered > sums.filled ? ordered - sums.filled : 0n),
    currency: marketCurrencies[market],
    averagePrice:
      fill === undefined || fxRate <= 0n
        ? null
        : formatPrice(fillPriceInMarketCurrency(fill, fxRate) as Price),
    arrivalPrice: sums.arrival === null ? null : formatPrice(sums.arrival.price as Price),
    vsArrivalBps:
      fill === undefined || sums.arrival === null || fxRate <= 0n
        ? null
        : formatCentiBps(slippageVsMarketCentiBps(fill, sums.arrival.price, fxRate)),
  }
}
