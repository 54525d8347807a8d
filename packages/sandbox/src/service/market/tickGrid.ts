import type { MarketCode } from '@stockroute/client/domain/markets.js'
import { findSpreadTable, priceRangeOf, usTickSize } from '@stockroute/client/domain/spreadTables.js'
import { assertOnTick, roundToTick } from '@stockroute/client/domain/tickRules.js'
import { type Price, type Rounding, toPrice } from '@stockroute/client/domain/units.js'

/**
 * The valid prices of one stock, as the simulator moves on them: the market's tick grid (US 0.01,
 * HK and KR the bands of the stock's spread table), restricted to a corridor `[floor, ceiling]`
 * around the reference price so a price never reaches zero nor leaves its table. Every price this
 * returns lies on the grid.
 */
export type TickGrid = {
  market: MarketCode
  spreadTableCode: string
  /** Lowest price used: a grid price, always positive. */
  floor: Price
  /** Highest price used: a grid price, inside the spread table. */
  ceiling: Price
  /** `price` clamped into the corridor, then the nearest grid price (a tie goes down). */
  nearest: (price: bigint) => Price
  /** The next grid price above `price` (a grid price), or the ceiling. */
  above: (price: Price) => Price
  /** The next grid price below `price` (a grid price), or the floor. */
  below: (price: Price) => Price
}

type Band = { from: bigint; to: bigint | null; tick: bigint }

/**
 * The grid of a stock whose reference price is `reference`, with the corridor
 * `[reference / corridor, reference * corridor]` (also within the spread table's range).
 *
 * The corridor's ends come from the domain's `roundToTick`; inside it, snapping uses the domain's
 * bands (`findSpreadTable`, `usTickSize`) with the same arithmetic as `roundToTick` (a band's grid
 * starts at its `from`; rounding up past a band's `to` lands on `to`), without `roundToTick`'s
 * per-call message building: the simulator snaps thousands of prices per simulated day.
 * Throws a `DomainRuleError` when the reference price is not on the grid (a catalogue error).
 */
export function tickGridFor(parameters: {
  market: MarketCode
  spreadTableCode: string
  reference: Price
  corridor: bigint
}): TickGrid {
  const { market, spreadTableCode, reference, corridor } = parameters
  assertOnTick({ market, spreadTableCode, price: reference })
  let low = reference / corridor
  let high = reference * corridor
  let bands: readonly Band[] = [{ from: 0n, to: null, tick: usTickSize }]
  if (market !== 'usex') {
    const table = findSpreadTable(market, spreadTableCode)
    const range = priceRangeOf(table)
    if (low < range.min) low = range.min
    if (high > range.max) high = range.max
    bands = table.bands.map((band) => ({ from: band.from, to: band.to, tick: band.minimumSpread }))
  }
  if (low < 1n) low = 1n
  const floor = roundToTick({ market, spreadTableCode, price: toPrice(low), direction: 'up' })
  const ceiling = roundToTick({ market, spreadTableCode, price: toPrice(high), direction: 'down' })

  /** The band of a price inside the corridor: [from, to), or the last band's [from, to]. */
  function bandOf(price: bigint): Band {
    let found = bands[0] as Band
    for (const band of bands) if (price >= band.from) found = band
    return found
  }
  function snap(price: bigint, direction: Rounding): Price {
    const band = bandOf(price)
    const offset = price - band.from
    let steps = offset / band.tick
    if (direction === 'up' && steps * band.tick !== offset) steps += 1n
    const result = band.from + steps * band.tick
    return toPrice(band.to !== null && result > band.to ? band.to : result)
  }
  function clamp(price: bigint): bigint {
    if (price < floor) return floor
    if (price > ceiling) return ceiling
    return price
  }
  return {
    market,
    spreadTableCode,
    floor,
    ceiling,
    nearest(price) {
      const clamped = clamp(price)
      const down = snap(clamped, 'down')
      if (down === clamped) return down
      const up = snap(clamped, 'up')
      return clamped - down <= up - clamped ? down : up
    },
    above: (price) => (price >= ceiling ? ceiling : toPrice(clamp(snap(price + 1n, 'up')))),
    below: (price) => (price <= floor ? floor : toPrice(clamp(snap(price - 1n, 'down')))),
  }
}
