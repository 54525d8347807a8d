import { DomainRuleError } from './domainRuleError.js'
import type { MarketCode } from './markets.js'
import { formatPrice, parsePrice } from './unitStrings.js'
import type { Price } from './units.js'

// Price-band ("spread") tables. A table maps a price to its tick size (`minimum_spread`); a
// ticker names its table by `spread_table_code`, looked up within its market (HK and KR codes are
// separate namespaces; US stocks have no table, only a default tick of 0.01).
//
// Band bounds: every band covers [from, to) except the LAST band of a table, which covers
// [from, to]: its `to` is the table's highest valid price. For HKEX that is 9995, the exchange's
// maximum price. KRX has no maximum ("500,000 or higher"); its last band uses the finite bound
// `krUnboundedTo` (1,000,000,000 KRW, thousands of times any listed price) so that the JSON stays
// plain decimal strings with no sentinel. Prices below the first band's `from` are out of range.

/** One price band as the service's GET /market/v1/{market}/spread-tables returns it. */
export type PriceBandJson = { readonly from: string; readonly to: string; readonly minimum_spread: string }

/** One spread table as the service returns it (decimal strings). */
export type SpreadTableJson = { readonly code: string; readonly price_bands: readonly PriceBandJson[] }

/** A parsed price band: prices in {@link Price} units. */
export type PriceBand = { readonly from: Price; readonly to: Price; readonly minimumSpread: Price }

/** A parsed, validated spread table: bands ascending and contiguous. */
export type SpreadTable = { readonly code: string; readonly bands: readonly PriceBand[] }

/** Markets that have spread tables. */
export type SpreadTableMarket = 'hkex' | 'krex'

/** Parsed spread tables per market. */
export type SpreadTables = { readonly [market in SpreadTableMarket]: readonly SpreadTable[] }

/** Upper bound standing for "or higher" in the KRX table's last band (inclusive), in KRW. */
export const krUnboundedTo = '1000000000'

/** HKEX spread table "Part A" (code `1`): the table nearly every HK stock uses. */
export const hkSpreadTableJson = {
  code: '1',
  price_bands: [
    { from: '0.01', to: '0.25', minimum_spread: '0.001' },
    { from: '0.25', to: '0.5', minimum_spread: '0.005' },
    { from: '0.5', to: '10', minimum_spread: '0.01' },
    { from: '10', to: '20', minimum_spread: '0.02' },
    { from: '20', to: '100', minimum_spread: '0.05' },
    { from: '100', to: '200', minimum_spread: '0.1' },
    { from: '200', to: '500', minimum_spread: '0.2' },
    { from: '500', to: '1000', minimum_spread: '0.5' },
    { from: '1000', to: '2000', minimum_spread: '1' },
    { from: '2000', to: '5000', minimum_spread: '2' },
    { from: '5000', to: '9995', minimum_spread: '5' },
  ],
} as const satisfies SpreadTableJson

/** KRX price bands (code `KRX`), exactly the interface reference's "Expected KR price bands". */
export const krSpreadTableJson = {
  code: 'KRX',
  price_bands: [
    { from: '0', to: '2000', minimum_spread: '1' },
    { from: '2000', to: '5000', minimum_spread: '5' },
    { from: '5000', to: '20000', minimum_spread: '10' },
    { from: '20000', to: '50000', minimum_spread: '50' },
    { from: '50000', to: '200000', minimum_spread: '100' },
    { from: '200000', to: '500000', minimum_spread: '500' },
    { from: '500000', to: krUnboundedTo, minimum_spread: '1000' },
  ],
} as const satisfies SpreadTableJson

/** The tables per market in the service's JSON shape (what the sandbox serves). */
export const spreadTablesJsonByMarket = {
  hkex: [hkSpreadTableJson],
  krex: [krSpreadTableJson],
} as const satisfies { readonly [market in SpreadTableMarket]: readonly SpreadTableJson[] }

/** US stocks: no price bands, one tick of 0.01 USD. */
export const usTickSize = parsePrice('0.01')

/** The spread_table_code of US stocks (the reference's default `1`; it names no table). */
export const usSpreadTableCode = '1'

/**
 * Parses and validates a spread table from its JSON form. Throws `BAD_SPREAD_TABLE` unless the
 * bands are non-empty, ascending and contiguous (`to` of one band is `from` of the next), every
 * tick is positive, every band's `from` lies on its own tick and the last band's `to` does too.
 * Those properties make rounding at band edges safe: a band's `to` is always a valid price.
 *
 * @example
 * parseSpreadTable({ code: '1', price_bands: [{ from: '0.01', to: '0.25', minimum_spread: '0.001' }] })
 * // { code: '1', bands: [{ from: 1000000n, to: 25000000n, minimumSpread: 100000n }] }
 */
export function parseSpreadTable(json: SpreadTableJson): SpreadTable {
  const bad = (problem: string, cause?: unknown) =>
    new DomainRuleError({
      code: 'BAD_SPREAD_TABLE',
      shortMessage: `Spread table ${JSON.stringify(json.code)} is not usable: ${problem}. Fix the table data.`,
      details: { code: json.code },
      cause,
    })
  if (typeof json.code !== 'string' || json.code === '') throw bad('its code is empty')
  if (json.price_bands.length === 0) throw bad('it has no price bands')
  const bands: PriceBand[] = []
  for (const [index, band] of json.price_bands.entries()) {
    let parsed: PriceBand
    try {
      parsed = {
        from: parsePrice(band.from),
        to: parsePrice(band.to),
        minimumSpread: parsePrice(band.minimum_spread),
      }
    } catch (error) {
      throw bad(`band ${index} has a bad number`, error)
    }
    const { from, to, minimumSpread } = parsed
    const last = index === json.price_bands.length - 1
    if (minimumSpread <= 0n) throw bad(`band ${index} has a non-positive minimum_spread`)
    if (from >= to) throw bad(`band ${index} has from >= to`)
    if (from % minimumSpread !== 0n)
      throw bad(`band ${index}'s from ${band.from} is not on its tick ${band.minimum_spread}`)
    if (last && to % minimumSpread !== 0n)
      throw bad(
        `the last band's to ${band.to} (its highest valid price) is not on its tick ${band.minimum_spread}`,
      )
    const previous = bands.at(-1)
    if (previous && previous.to !== from)
      throw bad(`band ${index} does not start where band ${index - 1} ends`)
    bands.push(parsed)
  }
  return { code: json.code, bands }
}

/**
 * Formats a parsed spread table back into the service's JSON shape (canonical decimals).
 *
 * @example
 * formatSpreadTable(parseSpreadTable(hkSpreadTableJson)).price_bands[0]
 * // { from: '0.01', to: '0.25', minimum_spread: '0.001' }
 */
export function formatSpreadTable(table: SpreadTable): SpreadTableJson {
  return {
    code: table.code,
    price_bands: table.bands.map((band) => ({
      from: formatPrice(band.from),
      to: formatPrice(band.to),
      minimum_spread: formatPrice(band.minimumSpread),
    })),
  }
}

/** The built-in tables per market, parsed. */
export const spreadTablesByMarket: SpreadTables = {
  hkex: spreadTablesJsonByMarket.hkex.map(parseSpreadTable),
  krex: spreadTablesJsonByMarket.krex.map(parseSpreadTable),
}

/**
 * Finds a market's spread table by `spread_table_code`. Throws `UNKNOWN_SPREAD_TABLE` when the
 * market has no table with that code (US stocks have none at all: use {@link usTickSize}).
 *
 * @example
 * findSpreadTable('krex', 'KRX').bands.length // 7
 */
export function findSpreadTable(
  market: MarketCode,
  code: string,
  tables: SpreadTables = spreadTablesByMarket,
): SpreadTable {
  const candidates = market === 'hkex' || market === 'krex' ? tables[market] : []
  const table = candidates.find((candidate) => candidate.code === code)
  if (!table)
    throw new DomainRuleError({
      code: 'UNKNOWN_SPREAD_TABLE',
      shortMessage:
        market === 'usex'
          ? `US stocks have no spread table (asked for ${JSON.stringify(code)}): their tick is ${formatPrice(usTickSize)} USD.`
          : `Market ${market} has no spread table ${JSON.stringify(code)} (known: ${candidates.map((t) => JSON.stringify(t.code)).join(', ') || 'none'}). Use the ticker's spread_table_code from GET /market/v1/tickers/{symbol}/info, or load the market's tables from GET /market/v1/${market}/spread-tables.`,
      details: { market, code },
    })
  return table
}

/**
 * The band containing `price`: [from, to) for every band but the last, [from, to] for the last.
 * Throws `PRICE_OUT_OF_RANGE` for a price that is not positive, below the first band's `from` or
 * above the last band's `to`.
 *
 * @example
 * findPriceBand(findSpreadTable('hkex', '1'), parsePrice('10')).minimumSpread // 2000000n (0.02)
 */
export function findPriceBand(table: SpreadTable, price: Price): PriceBand {
  const { min, max } = priceRangeOf(table)
  if (price > 0n && price >= min && price <= max) {
    const band = table.bands.find((candidate) => price >= candidate.from && price < candidate.to)
    const last = table.bands.at(-1)
    if (band) return band
    if (last && price === last.to) return last
  }
  throw new DomainRuleError({
    code: 'PRICE_OUT_OF_RANGE',
    shortMessage: `Price ${formatPrice(price)} is outside spread table ${JSON.stringify(table.code)}: valid prices are ${price <= 0n ? 'positive and ' : ''}from ${formatPrice(min)} to ${formatPrice(max)} inclusive.`,
    details: { price: formatPrice(price), table: table.code, min: formatPrice(min), max: formatPrice(max) },
  })
}

/**
 * The lowest and highest price a table covers (both inclusive).
 *
 * @example
 * priceRangeOf(findSpreadTable('hkex', '1')) // { min: 1000000n, max: 999500000000n } (0.01 to 9995)
 */
export function priceRangeOf(table: SpreadTable): { min: Price; max: Price } {
  const first = table.bands[0]
  const last = table.bands.at(-1)
  if (!first || !last)
    throw new DomainRuleError({
      code: 'BAD_SPREAD_TABLE',
      shortMessage: `Spread table ${JSON.stringify(table.code)} has no price bands: build tables with parseSpreadTable.`,
      details: { code: table.code },
    })
  return { min: first.from, max: last.to }
}
