import { divideHalfAway } from '@stockroute/client/domain/fillSlippage.js'
import { exchangeNames, isExchangeCode, marketCodes } from '@stockroute/client/domain/markets.js'
import { defaultFxRates, marketPriceInAsset } from '@stockroute/client/domain/quotePrice.js'
import { parsePrice } from '@stockroute/client/domain/unitStrings.js'
import { priceDecimals } from '@stockroute/client/domain/units.js'
import type Database from 'better-sqlite3'
import type { PositionState } from '../../store/positionAccounting.js'
import type { ReportContext } from '../types.js'

const priceScale = 10n ** BigInt(priceDecimals)
const currencyOfExchange: Readonly<Record<number, string>> = { 0: 'USD', 1: 'HKD', 3: 'KRW' }

/** What a position is worth and where its price came from. Amounts in base units, bigints. */
export type PositionValuation = {
  /** 'market': `context.marketPrices`; 'last fill': the token's last live fill (split-adjusted); null: no price. */
  priceSource: 'market' | 'last fill' | null
  /** Asset base units per whole share. */
  price: bigint | null
  /** `balance × price − cost basis`, asset base units (signed); null without a price. */
  unrealized: bigint | null
  /** `balance × price`, asset base units (signed). */
  marketValue: bigint | null
  /** The market's currency (USD, HKD, KRW) and the FX rate used (asset per unit, 1e8). */
  currency: string | null
  fxRate: bigint | null
  /** Price per share in the market currency, scaled 1e8 (the market's own price when priced by it). */
  priceInCurrency: bigint | null
  /** Average price per share in the market currency, 1e8. */
  avgPriceInCurrency: bigint | null
  /** Unrealized PnL in the market currency, 1e8 (signed). */
  unrealizedInCurrency: bigint | null
}

/**
 * Values a position for unrealized PnL. The price is the market's latest (`context.marketPrices`
 * under `${exchange}:${ticker}`, exchange as its code `1`, market `hkex` or name `HKEX`), converted
 * to the chain's asset at the engine's FX rate (`context.fxRates`, else its defaults) rounded down
 * like `marketPriceInAsset`; else the price of the token's last live fill (asset side over
 * quantity, half away from zero), scaled by every split recorded after that fill. Market-currency
 * figures divide asset amounts by the same FX rate (half away from zero).
 *
 * @example
 * const value = valuePosition(ledger.database, context, position)
 * value.priceSource // 'last fill'
 */
export function valuePosition(
  database: Database.Database,
  context: Pick<ReportContext, 'marketPrices' | 'fxRates'>,
  position: PositionState,
): PositionValuation {
  return valuePositionAt(context, position, () => lastFillOf(database, position)?.price ?? null)
}

/**
 * Values a position as {@link valuePosition} does, its last fill's price (split-adjusted, asset
 * base units per whole share, null when none) asked of `lastFillPrice` only when there is no market
 * price: for a position merged from several ledgers, whose last fill is the latest of theirs.
 *
 * @example
 * valuePositionAt(context, merged.state, () => merged.lastFill()?.price ?? null).unrealized
 */
export function valuePositionAt(
  context: Pick<ReportContext, 'marketPrices' | 'fxRates'>,
  position: PositionState,
  lastFillPrice: () => bigint | null,
): PositionValuation {
  const tokenScale = position.tokenKind === 'share' ? 10n ** 18n : 1n
  const exchange = isExchangeCode(position.exchange) ? position.exchange : undefined
  const fxRate = exchange === undefined ? null : (context.fxRates ?? defaultFxRates)[marketCodes[exchange]]
  const currency = currencyOfExchange[position.exchange] ?? null
  const assetScale = 10n ** BigInt(position.assetDecimals)
  const inCurrency = (assetAmount: bigint) =>
    fxRate === null ? null : divideHalfAway(assetAmount * priceScale * priceScale, fxRate * assetScale)

  let priceSource: PositionValuation['priceSource'] = null
  let price: bigint | null = null
  let priceInCurrency: bigint | null = null
  const quoted = exchange === undefined ? undefined : marketQuote(context, exchange, position.ticker)
  if (quoted !== undefined && fxRate !== null) {
    const marketPrice = parsePrice(quoted.price)
    priceInCurrency = marketPrice
    price = marketPriceInAsset({
      price: marketPrice,
      fxRate,
      assetDecimals: position.assetDecimals,
      direction: 'down',
    })
    priceSource = 'market'
  } else {
    price = lastFillPrice()
    if (price !== null) {
      priceSource = 'last fill'
      priceInCurrency = inCurrency(price)
    }
  }
  const magnitude = (value: bigint) => (value < 0n ? -value : value)
  const avgPrice =
    position.balance === 0n ? 0n : (magnitude(position.costBasis) * tokenScale) / magnitude(position.balance)
  const marketValue = price === null ? null : divideHalfAway(position.balance * price, tokenScale)
  const unrealized = marketValue === null ? null : marketValue - position.costBasis
  return {
    priceSource,
    price,
    unrealized,
    marketValue,
    currency,
    fxRate,
    priceInCurrency,
    avgPriceInCurrency: inCurrency(avgPrice),
    unrealizedInCurrency: unrealized === null ? null : inCurrency(unrealized),
  }
}

/** The price book's entry of a stock, under `${exchange}:${ticker}`, `${market}:${ticker}` or `${name}:${ticker}`. */
export function marketQuote(
  context: Pick<ReportContext, 'marketPrices'>,
  exchange: keyof typeof marketCodes,
  ticker: string,
) {
  const book = context.marketPrices
  if (!book) return undefined
  return (
    book.get(`${exchange}:${ticker}`) ??
    book.get(`${marketCodes[exchange]}:${ticker}`) ??
    book.get(`${exchangeNames[exchange]}:${ticker}`)
  )
}

/** A position's last live fill: where it is in its chain, and its price. */
export type LastFill = {
  blockNumber: number
  logIndex: number
  /** Asset base units per whole share, scaled by every split recorded after the fill; null for a fill of no shares. */
  price: bigint | null
}

/**
 * The position's last live fill in `database` (by ledger order), its price per whole share
 * scaled by the splits recorded after it; undefined when the token has no live fill.
 *
 * @example
 * lastFillOf(ledger.database, position)?.price // 69355575n
 */
export function lastFillOf(database: Database.Database, position: PositionState): LastFill | undefined {
  const tokenScale = position.tokenKind === 'share' ? 10n ** 18n : 1n
  const fill = database
    .prepare<
      [number, string],
      {
        seq: number
        block_number: number
        log_index: number
        is_buy: number
        amount_in: string
        amount_out: string
      }
    >(
      `SELECT seq, block_number, log_index, is_buy, amount_in, amount_out FROM fills
       WHERE chain_id = ? AND stock_token = ? AND reversed_at_ms IS NULL ORDER BY seq DESC LIMIT 1`,
    )
    .get(position.chainId, position.tokenAddress)
  if (!fill) return undefined
  const at = { blockNumber: fill.block_number, logIndex: fill.log_index }
  const assetAmount = BigInt(fill.is_buy === 1 ? fill.amount_in : fill.amount_out)
  const stockAmount = BigInt(fill.is_buy === 1 ? fill.amount_out : fill.amount_in)
  if (stockAmount === 0n) return { ...at, price: null }
  let numerator = assetAmount * tokenScale
  let denominator = stockAmount
  const splits = database
    .prepare<[number, string, number], { ratio_numerator: string; ratio_denominator: string }>(
      `SELECT ratio_numerator, ratio_denominator FROM position_adjustments
       WHERE chain_id = ? AND token_address = ? AND kind = 'split' AND seq > ? ORDER BY seq`,
    )
    .all(position.chainId, position.tokenAddress, fill.seq)
  // A split of n/d after the fill: each old share is now n/d shares, so a share is worth d/n.
  for (const split of splits) {
    numerator *= BigInt(split.ratio_denominator)
    denominator *= BigInt(split.ratio_numerator)
  }
  return { ...at, price: divideHalfAway(numerator, denominator) }
}
