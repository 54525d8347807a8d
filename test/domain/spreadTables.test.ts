import {
  findPriceBand,
  findSpreadTable,
  formatSpreadTable,
  hkSpreadTableJson,
  krSpreadTableJson,
  krUnboundedTo,
  parseSpreadTable,
  priceRangeOf,
  type SpreadTableJson,
  spreadTablesByMarket,
  spreadTablesJsonByMarket,
  usTickSize,
} from '@stockroute/client/domain/spreadTables.js'
import { formatPrice, parsePrice } from '@stockroute/client/domain/unitStrings.js'
import { toPrice } from '@stockroute/client/domain/units.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { domainError } from '../helpers/domainErrors.js'

// The interface reference's "Expected KR price bands", transcribed independently:
// [lowest price of the band, first price of the next band (null: "or higher"), tick], in KRW.
const krReference: readonly [number, number | null, number][] = [
  [0, 2_000, 1],
  [2_000, 5_000, 5],
  [5_000, 20_000, 10],
  [20_000, 50_000, 50],
  [50_000, 200_000, 100],
  [200_000, 500_000, 500],
  [500_000, null, 1_000],
]

// HKEX spread table Part A, transcribed independently: [from, to, tick] in HKD.
const hkReference: readonly [string, string, string][] = [
  ['0.01', '0.25', '0.001'],
  ['0.25', '0.5', '0.005'],
  ['0.5', '10', '0.01'],
  ['10', '20', '0.02'],
  ['20', '100', '0.05'],
  ['100', '200', '0.1'],
  ['200', '500', '0.2'],
  ['500', '1000', '0.5'],
  ['1000', '2000', '1'],
  ['2000', '5000', '2'],
  ['5000', '9995', '5'],
]

const kr = () => findSpreadTable('krex', 'KRX')
const hk = () => findSpreadTable('hkex', '1')
const tickAt = (table: ReturnType<typeof kr>, price: string) =>
  formatPrice(findPriceBand(table, parsePrice(price)).minimumSpread)

describe('KR spread table', () => {
  it('has exactly the reference bands, as strings', () => {
    expect(krSpreadTableJson.code).toBe('KRX')
    expect(krSpreadTableJson.price_bands).toEqual(
      krReference.map(([from, to, tick]) => ({
        from: String(from),
        to: to === null ? krUnboundedTo : String(to),
        minimum_spread: String(tick),
      })),
    )
    for (const band of krSpreadTableJson.price_bands)
      for (const value of Object.values(band)) expect(typeof value).toBe('string')
  })

  it.each([
    ['1', '1'],
    ['1999', '1'],
    ['2000', '5'],
    ['4999', '5'],
    ['5000', '10'],
    ['19999', '10'],
    ['20000', '50'],
    ['49999', '50'],
    ['50000', '100'],
    ['199999', '100'],
    ['200000', '500'],
    ['499999', '500'],
    ['500000', '1000'],
    ['3000000', '1000'],
  ])('price %s KRW has tick %s', (price, tick) => {
    expect(tickAt(kr(), price)).toBe(tick)
  })

  it('agrees with the reference at every whole-won price near every boundary (property)', () => {
    const edges = [2_000, 5_000, 20_000, 50_000, 200_000, 500_000]
    fc.assert(
      fc.property(fc.constantFrom(...edges), fc.integer({ min: -600, max: 600 }), (edge, offset) => {
        const price = edge + offset
        const row = krReference.find(([from, to]) => price >= from && (to === null || price < to))
        expect(tickAt(kr(), String(price))).toBe(String(row?.[2]))
      }),
    )
  })

  it('covers "500,000 or higher" up to its documented bound, and nothing at or below 0', () => {
    expect(tickAt(kr(), krUnboundedTo)).toBe('1000')
    expect(domainError(() => findPriceBand(kr(), parsePrice('1000000001'))).code).toBe('PRICE_OUT_OF_RANGE')
    expect(domainError(() => findPriceBand(kr(), toPrice(0n))).code).toBe('PRICE_OUT_OF_RANGE')
    expect(tickAt(kr(), '0.5')).toBe('1')
  })
})

describe('HK spread table', () => {
  it('is HKEX Part A', () => {
    expect(hkSpreadTableJson.code).toBe('1')
    expect(hkSpreadTableJson.price_bands).toEqual(
      hkReference.map(([from, to, minimum_spread]) => ({ from, to, minimum_spread })),
    )
  })

  it('treats bands as [from, to) and the last as [5000, 9995]', () => {
    expect(tickAt(hk(), '0.01')).toBe('0.001')
    expect(tickAt(hk(), '0.249')).toBe('0.001')
    expect(tickAt(hk(), '0.25')).toBe('0.005')
    expect(tickAt(hk(), '9.99')).toBe('0.01')
    expect(tickAt(hk(), '10')).toBe('0.02')
    expect(tickAt(hk(), '4998')).toBe('2')
    expect(tickAt(hk(), '5000')).toBe('5')
    expect(tickAt(hk(), '9995')).toBe('5')
    expect(priceRangeOf(hk())).toEqual({ min: parsePrice('0.01'), max: parsePrice('9995') })
  })

  it('rejects prices outside 0.01..9995 with PRICE_OUT_OF_RANGE', () => {
    for (const price of ['0', '0.009', '0.00999999', '9995.00000001', '10000']) {
      const error = domainError(() => findPriceBand(hk(), parsePrice(price)))
      expect(error.code).toBe('PRICE_OUT_OF_RANGE')
      expect(error.shortMessage).toContain('0.01')
      expect(error.shortMessage).toContain('9995')
    }
  })

  it('finds the band of every in-range price as the reference does (property)', () => {
    const rows = hkReference.map(([from, to, tick]) => [parsePrice(from), parsePrice(to), tick] as const)
    fc.assert(
      fc.property(fc.bigInt({ min: parsePrice('0.01'), max: parsePrice('9995') }), (value) => {
        const row = rows.find(
          ([from, to], index) => value >= from && (value < to || index === rows.length - 1),
        )
        expect(tickAt(hk(), formatPrice(toPrice(value)))).toBe(row?.[2])
      }),
    )
  })
})

describe('tables', () => {
  it('are looked up per market; codes are separate namespaces', () => {
    expect(findSpreadTable('hkex', '1').code).toBe('1')
    expect(findSpreadTable('krex', 'KRX').bands).toHaveLength(7)
    expect(domainError(() => findSpreadTable('krex', '1')).code).toBe('UNKNOWN_SPREAD_TABLE')
    expect(domainError(() => findSpreadTable('hkex', 'KRX')).code).toBe('UNKNOWN_SPREAD_TABLE')
    expect(domainError(() => findSpreadTable('hkex', '3')).shortMessage).toContain('spread-tables')
    expect(domainError(() => findSpreadTable('usex', '1')).shortMessage).toContain('0.01')
    expect(formatPrice(usTickSize)).toBe('0.01')
  })

  it('can be looked up in tables loaded from the service', () => {
    const custom = parseSpreadTable({
      code: '3',
      price_bands: [{ from: '1', to: '100', minimum_spread: '0.5' }],
    })
    const tables = { hkex: [custom], krex: [] }
    expect(findSpreadTable('hkex', '3', tables)).toBe(custom)
    expect(domainError(() => findSpreadTable('hkex', '1', tables)).code).toBe('UNKNOWN_SPREAD_TABLE')
  })

  it('round-trip between JSON and parsed form', () => {
    for (const market of ['hkex', 'krex'] as const) {
      const parsed = spreadTablesByMarket[market]
      expect(parsed.map(formatSpreadTable)).toEqual(spreadTablesJsonByMarket[market])
    }
  })

  it.each<[string, SpreadTableJson]>([
    ['no bands', { code: 'x', price_bands: [] }],
    ['empty code', { code: '', price_bands: [{ from: '1', to: '2', minimum_spread: '1' }] }],
    ['zero tick', { code: 'x', price_bands: [{ from: '1', to: '2', minimum_spread: '0' }] }],
    ['from >= to', { code: 'x', price_bands: [{ from: '2', to: '2', minimum_spread: '1' }] }],
    ['bad number', { code: 'x', price_bands: [{ from: '1e2', to: '200', minimum_spread: '1' }] }],
    ['from off its tick', { code: 'x', price_bands: [{ from: '1.5', to: '10', minimum_spread: '1' }] }],
    ['top off its tick', { code: 'x', price_bands: [{ from: '0', to: '9.5', minimum_spread: '1' }] }],
    [
      'gap between bands',
      {
        code: 'x',
        price_bands: [
          { from: '0', to: '10', minimum_spread: '1' },
          { from: '20', to: '40', minimum_spread: '2' },
        ],
      },
    ],
  ])('rejects a table with %s (BAD_SPREAD_TABLE)', (_, json) => {
    expect(domainError(() => parseSpreadTable(json)).code).toBe('BAD_SPREAD_TABLE')
  })
})
