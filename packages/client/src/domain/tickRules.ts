import { DomainRuleError } from './domainRuleError.js'
import { marketCurrencies } from './marketRules.js'
import type { MarketCode } from './markets.js'
import {
  findPriceBand,
  findSpreadTable,
  type SpreadTables,
  spreadTablesByMarket,
  usSpreadTableCode,
  usTickSize,
} from './spreadTables.js'
import { divideRounded } from './unitConversions.js'
import { formatPrice } from './unitStrings.js'
import type { Price, Rounding } from './units.js'

// Tick rules: an order price lies on the tick of its price band (HK, KR spread tables; US 0.01).

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
