import type { MarketCode } from './markets.js'
import {
  findPriceBand,
  findSpreadTable,
  type SpreadTables,
  spreadTablesByMarket,
  usSpreadTableCode,
  usTickSize,
} from './spreadTables.js'
import {
  type AssetAmount,
  assetAmountForShares,
  assetDecimalsOf,
  DomainRuleError,
  divideRounded,
  formatAssetAmount,
  formatPrice,
  formatShareQuantity,
  type Price,
  type Rounding,
  type ShareQuantity,
  type StockQuantity,
  shareDecimals,
} from './units.js'

// Market rules (reference: "Market-specific rules" and rule 3 of GET /api/v1/router/quote).
// HK: quantities in multiples of the ticker's lot size; prices on the tick of their price band.
// KR: minimum unit 1 share, no fractional shares (no ShareTokens); prices on the KRX band tick.
// US: lot 1, tick 0.01.

/** Currency of each market's prices, for messages. */
export const marketCurrencies = { usex: 'USD', hkex: 'HKD', krex: 'KRW' } as const satisfies Record<
  MarketCode,
  string
>

/**
 * Per-market defaults. HK lot sizes differ per ticker (`lot_size` from the ticker's info), so HK
 * has no default lot; most HK stocks use spread table `1` (Part A). KR's minimum unit is 1 share.
 */
export const marketDefaults = {
  usex: { lotSize: 1n, spreadTableCode: usSpreadTableCode },
  hkex: { lotSize: null, spreadTableCode: '1' },
  krex: { lotSize: 1n, spreadTableCode: 'KRX' },
} as const satisfies Record<MarketCode, { lotSize: bigint | null; spreadTableCode: string }>

/** Where a price is checked: the market, the ticker's spread_table_code, optionally other tables. */
export type TickParameters = {
  market: MarketCode
  /** The ticker's spread_table_code; US accepts only its default `1`. */
  spreadTableCode: string
  price: Price
  /** Tables to look the code up in; default the built-in {@link spreadTablesByMarket}. */
  tables?: SpreadTables
}

type Grid = {
  tick: Price
  /** Lowest valid price of the band (on tick). */
  from: Price
  /** A price at or above which the band ends: the next valid price above the band, or null. */
  ceiling: Price | null
  describe: string
}

function gridAt(parameters: TickParameters): Grid {
  const { market, spreadTableCode, price, tables = spreadTablesByMarket } = parameters
  const currency = marketCurrencies[market]
  if (market === 'usex') {
    if (spreadTableCode !== usSpreadTableCode) findSpreadTable(market, spreadTableCode, tables)
    if (price <= 0n)
      throw new DomainRuleError({
        code: 'PRICE_OUT_OF_RANGE',
        shortMessage: `Price ${formatPrice(price)} ${currency} is not positive: use a price of at least ${formatPrice(usTickSize)}.`,
        details: { market, price: formatPrice(price) },
      })
    return {
      tick: usTickSize,
      from: 0n as Price,
      ceiling: null,
      describe: `US prices move in steps of ${formatPrice(usTickSize)} ${currency}`,
    }
  }
  const table = findSpreadTable(market, spreadTableCode, tables)
  const band = findPriceBand(table, price)
  return {
    tick: band.minimumSpread,
    from: band.from,
    ceiling: band.to,
    describe: `prices from ${formatPrice(band.from)} to ${band === table.bands.at(-1) ? '' : 'below '}${formatPrice(band.to)} ${currency} move in steps of ${formatPrice(band.minimumSpread)} (${market} spread table ${JSON.stringify(table.code)})`,
  }
}

/** The grid price next to `price` in `direction` (the band's `to` when `up` passes it). */
function snap(grid: Grid, price: Price, direction: Rounding): Price {
  const steps = divideRounded(price - grid.from, grid.tick, direction)
  const result = grid.from + steps * grid.tick
  return (grid.ceiling !== null && result > grid.ceiling ? grid.ceiling : result) as Price
}

/**
 * The tick size at a price: the minimum_spread of the band containing it (HK, KR), 0.01 for US.
 * Throws `PRICE_OUT_OF_RANGE` for a price outside the table, `UNKNOWN_SPREAD_TABLE` for an
 * unknown code.
 *
 * @example
 * tickSize({ market: 'hkex', spreadTableCode: '1', price: parsePrice('418.6') }) // 20000000n (0.2)
 */
export function tickSize(parameters: TickParameters): Price {
  return gridAt(parameters).tick
}

/**
 * Throws unless `price` is a valid order price: inside the table's range (`PRICE_OUT_OF_RANGE`,
 * which includes HK prices below 0.01 and above 9995) and a multiple of its band's tick
 * (`OFF_TICK`, whose message suggests the nearest valid prices either side).
 *
 * @example
 * assertOnTick({ market: 'hkex', spreadTableCode: '1', price: parsePrice('418.6') }) // ok
 * assertOnTick({ market: 'hkex', spreadTableCode: '1', price: parsePrice('418.7') }) // throws OFF_TICK
 */
export function assertOnTick(parameters: TickParameters): void {
  const { price, market } = parameters
  const grid = gridAt(parameters)
  if ((price - grid.from) % grid.tick === 0n) return
  const below = snap(grid, price, 'down')
  const above = snap(grid, price, 'up')
  const currency = marketCurrencies[market]
  throw new DomainRuleError({
    code: 'OFF_TICK',
    shortMessage: `Price ${formatPrice(price)} ${currency} is not on the tick grid: ${grid.describe}. Use ${below === 0n ? '' : `${formatPrice(below)} or `}${formatPrice(above)}.`,
    details: {
      market,
      spreadTableCode: parameters.spreadTableCode,
      price: formatPrice(price),
      tick: formatPrice(grid.tick),
      down: below === 0n ? null : formatPrice(below),
      up: formatPrice(above),
    },
  })
}

/**
 * Whether `price` is a valid order price (see {@link assertOnTick}). An unknown spread table
 * still throws: that is a configuration error, not a property of the price.
 *
 * @example
 * isOnTick({ market: 'krex', spreadTableCode: 'KRX', price: parsePrice('56300') }) // true
 * isOnTick({ market: 'krex', spreadTableCode: 'KRX', price: parsePrice('56350') }) // false (tick 100)
 */
export function isOnTick(parameters: TickParameters): boolean {
  try {
    assertOnTick(parameters)
    return true
  } catch (error) {
    if (
      error instanceof DomainRuleError &&
      (error.code === 'OFF_TICK' || error.code === 'PRICE_OUT_OF_RANGE')
    )
      return false
    throw error
  }
}

/**
 * The nearest valid price at or below (`down`) or at or above (`up`) `price`, strictly less than
 * one tick of `price`'s band away. At a band edge `up` lands on the next band's `from` (e.g. HK
 * 9.995 up is 10, not 10.01). The input must lie in the table's range (else
 * `PRICE_OUT_OF_RANGE`); a result of zero (KR price below 1 rounded down, US below 0.01) throws
 * `ROUNDS_TO_ZERO`.
 *
 * @example
 * roundToTick({ market: 'hkex', spreadTableCode: '1', price: parsePrice('10.01'), direction: 'up' })
 * // 1002000000n (10.02)
 */
export function roundToTick(parameters: TickParameters & { direction: Rounding }): Price {
  const { price, direction, market } = parameters
  const grid = gridAt(parameters)
  const result = snap(grid, price, direction)
  if (result === 0n)
    throw new DomainRuleError({
      code: 'ROUNDS_TO_ZERO',
      shortMessage: `Price ${formatPrice(price)} ${marketCurrencies[market]} rounds down to zero on the tick grid (${grid.describe}): round up instead or use a higher price.`,
      details: { market, price: formatPrice(price), tick: formatPrice(grid.tick) },
    })
  return result as Price
}

/**
 * The lot size of a ticker: the given `lot_size` (from ticker info), else the market's default.
 * Throws `BAD_LOT_SIZE` for a non-positive lot size or an HK ticker without one.
 *
 * @example
 * resolveLotSize({ market: 'krex' }) // 1n
 * resolveLotSize({ market: 'hkex', lotSize: 100n }) // 100n
 */
export function resolveLotSize(parameters: { market: MarketCode; lotSize?: bigint }): bigint {
  const { market } = parameters
  const lotSize = parameters.lotSize ?? marketDefaults[market].lotSize
  if (lotSize === null)
    throw new DomainRuleError({
      code: 'BAD_LOT_SIZE',
      shortMessage: `HK lot sizes differ per ticker: pass the ticker's lot_size from GET /market/v1/tickers/{symbol}/info?market=hkex.`,
      details: { market },
    })
  return assertLotSize(lotSize)
}

/**
 * Throws unless `quantity` is a positive multiple of `lotSize` (the HK lot rule; KR and US have
 * lot 1, so only zero fails there). `BELOW_ONE_LOT` for zero, `NOT_LOT_MULTIPLE` otherwise, with
 * the nearest valid quantities in the message. Quantities are never adjusted silently.
 *
 * @example
 * assertLotMultiple({ quantity: toStockQuantity(300n), lotSize: 100n }) // ok
 * assertLotMultiple({ quantity: toStockQuantity(250n), lotSize: 100n }) // throws NOT_LOT_MULTIPLE
 */
export function assertLotMultiple(parameters: { quantity: StockQuantity; lotSize: bigint }): void {
  const { quantity } = parameters
  const lotSize = assertLotSize(parameters.lotSize)
  if (quantity <= 0n)
    throw new DomainRuleError({
      code: 'BELOW_ONE_LOT',
      shortMessage: `Quantity ${quantity} is below one lot: order at least ${lotSize} shares.`,
      details: { quantity: quantity.toString(), lotSize: lotSize.toString() },
    })
  if (quantity % lotSize === 0n) return
  const down = (quantity / lotSize) * lotSize
  const up = down + lotSize
  throw new DomainRuleError({
    code: 'NOT_LOT_MULTIPLE',
    shortMessage: `Quantity ${quantity} is not a multiple of the lot size ${lotSize}: use ${down === 0n ? '' : `${down} or `}${up} shares.`,
    details: {
      quantity: quantity.toString(),
      lotSize: lotSize.toString(),
      down: down.toString(),
      up: up.toString(),
    },
  })
}

/**
 * `quantity` rounded down to whole lots. Throws `BELOW_ONE_LOT` when that leaves nothing.
 *
 * @example
 * roundDownToLots(toStockQuantity(250n), 100n) // 200n
 */
export function roundDownToLots(quantity: StockQuantity, lotSize: bigint): StockQuantity {
  const lot = assertLotSize(lotSize)
  const result = quantity < 0n ? 0n : (quantity / lot) * lot
  if (result === 0n)
    throw new DomainRuleError({
      code: 'BELOW_ONE_LOT',
      shortMessage: `Quantity ${quantity} is less than one lot of ${lot} shares: order at least ${lot} shares.`,
      details: { quantity: quantity.toString(), lotSize: lot.toString() },
    })
  return result as StockQuantity
}

/** A quantity together with the kind of token it counts. */
export type TokenQuantity =
  | { token: 'stock'; quantity: StockQuantity }
  | { token: 'share'; quantity: ShareQuantity }

/**
 * The KR rule "minimum unit 1 share, no fractional shares": on `krex` a ShareToken quantity is
 * rejected with `FRACTIONAL_SHARES`, whatever its value (KR stocks trade as StockTokens only).
 * Other markets pass.
 *
 * @example
 * assertWholeShares({ market: 'krex', token: 'stock', quantity: toStockQuantity(3n) }) // ok
 * assertWholeShares({ market: 'krex', token: 'share', quantity: parseShareQuantity('0.5') }) // throws
 */
export function assertWholeShares(parameters: { market: MarketCode } & TokenQuantity): void {
  if (parameters.market !== 'krex' || parameters.token === 'stock') return
  throw new DomainRuleError({
    code: 'FRACTIONAL_SHARES',
    shortMessage: `South Korea stocks trade in whole shares only, but a ShareToken quantity (${formatShareQuantity(parameters.quantity)} shares) was given. Trade the StockToken with a whole number of shares.`,
    details: { market: parameters.market, quantity: formatShareQuantity(parameters.quantity) },
  })
}

/**
 * All quantity rules of an order in one call: KR whole shares ({@link assertWholeShares}), then
 * for StockToken quantities the lot rule ({@link assertLotMultiple}) with the ticker's lot size
 * or the market default; a ShareToken quantity must be non-zero (`ROUNDS_TO_ZERO` otherwise —
 * a zero fraction is what a too-small amount rounds to).
 *
 * @example
 * assertOrderQuantity({ market: 'hkex', lotSize: 500n, token: 'stock', quantity: toStockQuantity(1000n) }) // ok
 */
export function assertOrderQuantity(
  parameters: { market: MarketCode; lotSize?: bigint } & TokenQuantity,
): void {
  assertWholeShares(parameters)
  if (parameters.token === 'stock') {
    const { market, quantity } = parameters
    const lotSize = resolveLotSize(
      parameters.lotSize === undefined ? { market } : { market, lotSize: parameters.lotSize },
    )
    assertLotMultiple({ quantity, lotSize })
    return
  }
  if (parameters.quantity <= 0n)
    throw new DomainRuleError({
      code: 'ROUNDS_TO_ZERO',
      shortMessage: 'ShareToken quantity is zero: order a positive fraction of a share.',
      details: { quantity: parameters.quantity.toString() },
    })
}

/** Inputs of the stablecoin-in conversions. */
export type StablecoinInParameters = {
  /** The asset amount offered, in base units. */
  assetAmount: AssetAmount
  /** The asset's decimals on this chain (for validation and messages). */
  assetDecimals: number
  /** Price of one whole share in asset base units. */
  pricePerShareInAsset: AssetAmount
}

/**
 * HK stablecoin-in rounding (router quote rule 3): buys as many whole lots as `assetAmount`
 * pays for; the unused rest is not charged. `amountUsed = quantity * pricePerShareInAsset` is
 * exact and never above `assetAmount`, and what is left is less than one lot's cost. Throws
 * `BELOW_ONE_LOT` when the amount does not cover one lot (no quote is returned then). Fees are
 * not part of this computation.
 *
 * @example
 * quantityForStablecoinIn({
 *   assetAmount: parseAssetAmount('100000', 6),
 *   assetDecimals: 6,
 *   pricePerShareInAsset: parseAssetAmount('418.6', 6),
 *   lotSize: 100n,
 * }) // { quantity: 200n, amountUsed: 83720000000n } (83,720)
 */
export function quantityForStablecoinIn(parameters: StablecoinInParameters & { lotSize: bigint }): {
  quantity: StockQuantity
  amountUsed: AssetAmount
} {
  const { assetAmount, pricePerShareInAsset } = parameters
  const assetDecimals = assetDecimalsOf(parameters.assetDecimals)
  const lotSize = assertLotSize(parameters.lotSize)
  assertStablecoinInputs(parameters)
  const lotCost = pricePerShareInAsset * lotSize
  const lots = assetAmount / lotCost
  if (lots === 0n)
    throw new DomainRuleError({
      code: 'BELOW_ONE_LOT',
      shortMessage: `Asset amount ${formatAssetAmount(assetAmount, assetDecimals)} does not cover one lot: ${lotSize} shares at ${formatAssetAmount(pricePerShareInAsset, assetDecimals)} cost ${formatAssetAmount(lotCost as AssetAmount, assetDecimals)}. Offer at least that amount.`,
      details: {
        assetAmount: assetAmount.toString(),
        lotSize: lotSize.toString(),
        lotCost: lotCost.toString(),
        assetDecimals,
      },
    })
  const quantity = lots * lotSize
  return { quantity: quantity as StockQuantity, amountUsed: (quantity * pricePerShareInAsset) as AssetAmount }
}

/**
 * Stablecoin-in for a ShareToken (fractional buy): the largest 18-decimal quantity whose exact
 * cost fits in `assetAmount` (rounded down), and `amountUsed`, that cost rounded UP to the asset's
 * base unit. Rounding the cost up means the buyer never pays less than the value received; it
 * still never exceeds `assetAmount`, because `quantity <= assetAmount * 10^18 / price` gives an
 * exact cost `<= assetAmount`, and rounding up an amount that is at most an integer stays at most
 * that integer. Consequences: `amountUsed` exceeds the exact cost by less than one base unit, and
 * what is left is less than the cost of one ShareToken unit (price / 10^18; for a 6-decimal asset
 * and any price below 10^18 base units, nothing is left). Throws `ROUNDS_TO_ZERO` when the amount
 * buys no ShareToken unit at all.
 *
 * @example
 * shareQuantityForStablecoinIn({
 *   assetAmount: parseAssetAmount('100', 6),
 *   assetDecimals: 6,
 *   pricePerShareInAsset: parseAssetAmount('400', 6),
 * }) // { quantity: 250000000000000000n (0.25), amountUsed: 100000000n }
 */
export function shareQuantityForStablecoinIn(parameters: StablecoinInParameters): {
  quantity: ShareQuantity
  amountUsed: AssetAmount
} {
  const { assetAmount, pricePerShareInAsset } = parameters
  const assetDecimals = assetDecimalsOf(parameters.assetDecimals)
  assertStablecoinInputs(parameters)
  const quantity = divideRounded(assetAmount * 10n ** BigInt(shareDecimals), pricePerShareInAsset, 'down')
  if (quantity === 0n)
    throw new DomainRuleError({
      code: 'ROUNDS_TO_ZERO',
      shortMessage: `Asset amount ${formatAssetAmount(assetAmount, assetDecimals)} buys no ShareToken unit at ${formatAssetAmount(pricePerShareInAsset, assetDecimals)} per share: offer a larger amount.`,
      details: {
        assetAmount: assetAmount.toString(),
        pricePerShareInAsset: pricePerShareInAsset.toString(),
        assetDecimals,
      },
    })
  const shareQuantity = quantity as ShareQuantity
  const amountUsed = assetAmountForShares({ quantity: shareQuantity, pricePerShareInAsset, direction: 'up' })
  return { quantity: shareQuantity, amountUsed }
}

function assertStablecoinInputs(parameters: StablecoinInParameters): void {
  const { assetAmount, pricePerShareInAsset } = parameters
  if (assetAmount < 0n)
    throw new DomainRuleError({
      code: 'NEGATIVE_AMOUNT',
      shortMessage: `Asset amount ${assetAmount} is negative: offer a positive amount.`,
      details: { assetAmount: assetAmount.toString() },
    })
  if (pricePerShareInAsset <= 0n)
    throw new DomainRuleError({
      code: 'PRICE_OUT_OF_RANGE',
      shortMessage: `Price per share ${pricePerShareInAsset} (asset base units) is not positive: pass the share price in the asset's base units.`,
      details: { pricePerShareInAsset: pricePerShareInAsset.toString() },
    })
}

function assertLotSize(lotSize: bigint): bigint {
  if (typeof lotSize !== 'bigint' || lotSize <= 0n)
    throw new DomainRuleError({
      code: 'BAD_LOT_SIZE',
      shortMessage: `Lot size ${String(lotSize)} is not valid: a lot size is a positive whole number of shares as a bigint (e.g. 100n; convert the ticker's lot_size with BigInt()).`,
      details: { lotSize: String(lotSize) },
    })
  return lotSize
}
