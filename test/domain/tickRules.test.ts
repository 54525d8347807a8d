import { DomainRuleError } from '@stockroute/client/domain/domainRuleError.js'
import { marketDefaults } from '@stockroute/client/domain/marketRules.js'
import type { MarketCode } from '@stockroute/client/domain/markets.js'
import {
  hkSpreadTableJson,
  krSpreadTableJson,
  parseSpreadTable,
} from '@stockroute/client/domain/spreadTables.js'
import {
  assertOnTick,
  isOnTick,
  roundToTick,
  type TickParameters,
  tickSize,
} from '@stockroute/client/domain/tickRules.js'
import { formatPrice, parsePrice } from '@stockroute/client/domain/unitStrings.js'
import { type Price, type Rounding, toPrice } from '@stockroute/client/domain/units.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { domainError } from '../helpers/domainErrors.js'

const at = (market: MarketCode, price: string | Price): TickParameters => ({
  market,
  spreadTableCode: marketDefaults[market].spreadTableCode,
  price: typeof price === 'string' ? parsePrice(price) : price,
})
const round = (market: MarketCode, price: string | Price, direction: Rounding) =>
  formatPrice(roundToTick({ ...at(market, price), direction }))

// Test-side oracle: bands from the JSON tables (checked against the reference in
// spreadTables.test.ts), searched by a plain loop; US is one band (0, ∞) with tick 0.01.
type OracleBand = { from: bigint; to: bigint; tick: bigint; last: boolean }
function oracleBands(market: MarketCode): OracleBand[] {
  if (market === 'usex') return [{ from: 0n, to: parsePrice('100000'), tick: parsePrice('0.01'), last: true }]
  const json = market === 'hkex' ? hkSpreadTableJson : krSpreadTableJson
  return json.price_bands.map((band, index) => ({
    from: parsePrice(band.from),
    to: parsePrice(band.to),
    tick: parsePrice(band.minimum_spread),
    last: index === json.price_bands.length - 1,
  }))
}
function oracleTick(market: MarketCode, price: bigint): bigint {
  for (const band of oracleBands(market))
    if (price >= band.from && (price < band.to || (band.last && price === band.to))) return band.tick
  throw new Error(`oracle: ${price} out of range`)
}

const markets = ['usex', 'hkex', 'krex'] as const satisfies readonly MarketCode[]

/** An in-range positive price, drawn band by band so every band is exercised; half of them on-grid. */
const marketPrice = fc.constantFrom(...markets).chain((market) =>
  fc.constantFrom(...oracleBands(market)).chain((band) => {
    const top = band.last ? band.to : band.to - 1n
    const anyPrice = fc.bigInt({ min: band.from, max: top })
    const onGrid = fc
      .bigInt({ min: 0n, max: (top - band.from) / band.tick })
      .map((steps) => band.from + steps * band.tick)
    return fc
      .oneof(
        anyPrice,
        onGrid,
        onGrid.map((p) => p - 1n),
        onGrid.map((p) => p + 1n),
      )
      .filter((price) => price > 0n && price >= band.from && price <= top)
      .map((price) => ({ market, price: toPrice(price) }))
  }),
)

describe('tickSize', () => {
  it('is the band minimum_spread for HK and KR, 0.01 for US', () => {
    expect(formatPrice(tickSize(at('hkex', '418.6')))).toBe('0.2')
    expect(formatPrice(tickSize(at('hkex', '84.15')))).toBe('0.05')
    expect(formatPrice(tickSize(at('hkex', '0.2')))).toBe('0.001')
    expect(formatPrice(tickSize(at('krex', '56300')))).toBe('100')
    expect(formatPrice(tickSize(at('krex', '178500')))).toBe('100')
    expect(formatPrice(tickSize(at('usex', '227.48')))).toBe('0.01')
    expect(formatPrice(tickSize(at('usex', '0.5')))).toBe('0.01')
  })

  it('rejects unknown spread tables, including a non-default code for US', () => {
    const hk = { ...at('hkex', '10'), spreadTableCode: '9' }
    expect(domainError(() => tickSize(hk)).code).toBe('UNKNOWN_SPREAD_TABLE')
    expect(domainError(() => tickSize({ ...at('usex', '10'), spreadTableCode: 'KRX' })).code).toBe(
      'UNKNOWN_SPREAD_TABLE',
    )
    expect(() => isOnTick(hk)).toThrow(DomainRuleError)
  })

  it('matches the oracle (property)', () => {
    fc.assert(
      fc.property(marketPrice, ({ market, price }) => {
        expect(tickSize(at(market, price))).toBe(oracleTick(market, price))
      }),
    )
  })
})

describe('assertOnTick / isOnTick', () => {
  it('accepts on-tick prices and rejects finer increments', () => {
    for (const [market, price] of [
      ['hkex', '418.6'],
      ['hkex', '0.01'],
      ['hkex', '0.249'],
      ['hkex', '0.255'],
      ['hkex', '9.99'],
      ['hkex', '10.02'],
      ['hkex', '9995'],
      ['krex', '1999'],
      ['krex', '2000'],
      ['krex', '4995'],
      ['krex', '56300'],
      ['krex', '500000'],
      ['usex', '227.48'],
    ] as const) {
      expect(isOnTick(at(market, price)), `${market} ${price}`).toBe(true)
      expect(() => assertOnTick(at(market, price))).not.toThrow()
    }
    for (const [market, price] of [
      ['hkex', '418.7'],
      ['hkex', '0.2505'],
      ['hkex', '10.01'],
      ['hkex', '9990.5'],
      ['krex', '2001'],
      ['krex', '4999'],
      ['krex', '19995'],
      ['krex', '56350'],
      ['krex', '500500'],
      ['krex', '1999.5'],
      ['usex', '227.485'],
    ] as const) {
      expect(isOnTick(at(market, price)), `${market} ${price}`).toBe(false)
      expect(domainError(() => assertOnTick(at(market, price))).code).toBe('OFF_TICK')
    }
  })

  it('says which prices to use instead', () => {
    const error = domainError(() => assertOnTick(at('hkex', '418.7')))
    expect(error.shortMessage).toContain('418.6')
    expect(error.shortMessage).toContain('418.8')
    expect(error.shortMessage).toContain('0.2')
    expect(error.details).toMatchObject({ down: '418.6', up: '418.8', tick: '0.2' })
    const belowOne = domainError(() => assertOnTick(at('krex', '0.5')))
    expect(belowOne.code).toBe('OFF_TICK')
    expect(belowOne.details).toMatchObject({ down: null, up: '1' })
  })

  it('rejects HK prices below the first band and above 9995, and zero anywhere', () => {
    for (const [market, price] of [
      ['hkex', '0.009'],
      ['hkex', '0'],
      ['hkex', '10000'],
      ['krex', '0'],
      ['usex', '0'],
    ] as const) {
      expect(isOnTick(at(market, price))).toBe(false)
      expect(domainError(() => assertOnTick(at(market, price))).code).toBe('PRICE_OUT_OF_RANGE')
    }
  })

  it('accepts a price exactly when it is a multiple of its band tick (property)', () => {
    fc.assert(
      fc.property(marketPrice, ({ market, price }) => {
        expect(isOnTick(at(market, price))).toBe(price % oracleTick(market, price) === 0n)
      }),
    )
  })
})

describe('roundToTick', () => {
  it('rounds within the band and across band edges', () => {
    expect(round('hkex', '10.01', 'down')).toBe('10')
    expect(round('hkex', '10.01', 'up')).toBe('10.02')
    expect(round('hkex', '9.995', 'down')).toBe('9.99')
    expect(round('hkex', '9.995', 'up')).toBe('10')
    expect(round('hkex', '9.999', 'up')).toBe('10')
    expect(round('hkex', '0.2495', 'up')).toBe('0.25')
    expect(round('hkex', '0.2535', 'down')).toBe('0.25')
    expect(round('hkex', '0.2535', 'up')).toBe('0.255')
    expect(round('hkex', '9994', 'up')).toBe('9995')
    expect(round('hkex', '418.6', 'up')).toBe('418.6')
    expect(round('krex', '4999', 'down')).toBe('4995')
    expect(round('krex', '4999', 'up')).toBe('5000')
    expect(round('krex', '499999', 'up')).toBe('500000')
    expect(round('krex', '56301', 'down')).toBe('56300')
    expect(round('usex', '227.485', 'down')).toBe('227.48')
    expect(round('usex', '227.485', 'up')).toBe('227.49')
    expect(round('usex', '0.001', 'up')).toBe('0.01')
  })

  it('stops at the next band when a band end is not on its own tick (tables from the service)', () => {
    // [0, 10) moves in steps of 3 (3, 6, 9), [10, 20] in steps of 5: above 9 the next valid price is 10.
    const table = parseSpreadTable({
      code: 'odd',
      price_bands: [
        { from: '0', to: '10', minimum_spread: '3' },
        { from: '10', to: '20', minimum_spread: '5' },
      ],
    })
    const tables = { hkex: [table], krex: [] }
    const odd = (price: string, direction: Rounding) =>
      formatPrice(
        roundToTick({ market: 'hkex', spreadTableCode: 'odd', price: parsePrice(price), direction, tables }),
      )
    expect(odd('8', 'up')).toBe('9')
    expect(odd('9.5', 'up')).toBe('10')
    expect(odd('9.5', 'down')).toBe('9')
    expect(odd('11', 'up')).toBe('15')
    expect(isOnTick({ market: 'hkex', spreadTableCode: 'odd', price: parsePrice('10'), tables })).toBe(true)
    expect(isOnTick({ market: 'hkex', spreadTableCode: 'odd', price: parsePrice('8'), tables })).toBe(false)
    const withoutTable = { market: 'hkex', spreadTableCode: '1', price: parsePrice('10'), tables } as const
    expect(domainError(() => isOnTick(withoutTable)).code).toBe('UNKNOWN_SPREAD_TABLE')
  })

  it('throws ROUNDS_TO_ZERO instead of returning a zero price', () => {
    expect(domainError(() => roundToTick({ ...at('krex', '0.5'), direction: 'down' })).code).toBe(
      'ROUNDS_TO_ZERO',
    )
    expect(domainError(() => roundToTick({ ...at('usex', '0.001'), direction: 'down' })).code).toBe(
      'ROUNDS_TO_ZERO',
    )
    expect(round('krex', '0.5', 'up')).toBe('1')
  })

  it('throws PRICE_OUT_OF_RANGE outside the table', () => {
    expect(domainError(() => roundToTick({ ...at('hkex', '0.005'), direction: 'up' })).code).toBe(
      'PRICE_OUT_OF_RANGE',
    )
    expect(domainError(() => roundToTick({ ...at('hkex', '9996'), direction: 'down' })).code).toBe(
      'PRICE_OUT_OF_RANGE',
    )
  })

  it('returns an accepted price, in the given direction, less than one tick away, and the nearest (property)', () => {
    fc.assert(
      fc.property(marketPrice, fc.constantFrom<Rounding>('down', 'up'), ({ market, price }, direction) => {
        let result: Price
        try {
          result = roundToTick({ ...at(market, price), direction })
        } catch (error) {
          // The only allowed failure: rounding a sub-tick price down to zero.
          expect(error).toBeInstanceOf(DomainRuleError)
          expect((error as DomainRuleError).code).toBe('ROUNDS_TO_ZERO')
          expect(direction).toBe('down')
          expect(price < oracleTick(market, price)).toBe(true)
          return
        }
        expect(isOnTick(at(market, result))).toBe(true)
        const tick = oracleTick(market, price)
        const distance = direction === 'down' ? price - result : result - price
        expect(distance >= 0n && distance < tick).toBe(true)
        if (price % tick === 0n) expect(result).toBe(price)
        if (result !== price) {
          // No valid price lies strictly between the input and the result.
          if (direction === 'down') {
            const next = roundToTick({ ...at(market, toPrice(result + 1n)), direction: 'up' })
            expect(next > price).toBe(true)
          } else if (result - 1n >= oracleTick(market, result - 1n)) {
            // (Below the first positive grid price there is no valid price to compare with.)
            const previous = roundToTick({ ...at(market, toPrice(result - 1n)), direction: 'down' })
            expect(previous < price).toBe(true)
          }
        }
      }),
      { numRuns: 500 },
    )
  })
})
