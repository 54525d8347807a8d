import { DomainRuleError } from '@stockroute/client/domain/domainRuleError.js'
import { marketDefaults } from '@stockroute/client/domain/marketRules.js'
import {
  assertLotMultiple,
  assertOrderQuantity,
  assertWholeShares,
  resolveLotSize,
  roundDownToLots,
} from '@stockroute/client/domain/quantityRules.js'
import { parseShareQuantity } from '@stockroute/client/domain/unitStrings.js'
import { toShareQuantity, toStockQuantity } from '@stockroute/client/domain/units.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { domainError } from '../helpers/domainErrors.js'

describe('lots', () => {
  it('has per-market defaults: US and KR lot 1, HK per ticker', () => {
    expect(resolveLotSize({ market: 'usex' })).toBe(1n)
    expect(resolveLotSize({ market: 'krex' })).toBe(1n)
    expect(resolveLotSize({ market: 'hkex', lotSize: 400n })).toBe(400n)
    expect(domainError(() => resolveLotSize({ market: 'hkex' })).code).toBe('BAD_LOT_SIZE')
    expect(domainError(() => resolveLotSize({ market: 'hkex', lotSize: 0n })).code).toBe('BAD_LOT_SIZE')
    expect(marketDefaults.krex.spreadTableCode).toBe('KRX')
    expect(marketDefaults.usex.spreadTableCode).toBe('1')
  })

  it('rejects non-multiples without adjusting, suggesting both neighbours', () => {
    expect(() => assertLotMultiple({ quantity: toStockQuantity(300n), lotSize: 100n })).not.toThrow()
    const error = domainError(() => assertLotMultiple({ quantity: toStockQuantity(250n), lotSize: 100n }))
    expect(error.code).toBe('NOT_LOT_MULTIPLE')
    expect(error.shortMessage).toContain('200 or 300')
    expect(domainError(() => assertLotMultiple({ quantity: toStockQuantity(50n), lotSize: 100n })).code).toBe(
      'NOT_LOT_MULTIPLE',
    )
    expect(domainError(() => assertLotMultiple({ quantity: toStockQuantity(0n), lotSize: 100n })).code).toBe(
      'BELOW_ONE_LOT',
    )
    expect(domainError(() => assertLotMultiple({ quantity: toStockQuantity(1n), lotSize: -1n })).code).toBe(
      'BAD_LOT_SIZE',
    )
  })

  it('accepts a quantity exactly when it is a positive lot multiple (property)', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 9n }),
        fc.bigInt({ min: 1n, max: 2000n }),
        (q, lotSize) => {
          const quantity = toStockQuantity(q)
          let accepted = true
          try {
            assertLotMultiple({ quantity, lotSize })
          } catch (error) {
            expect(error).toBeInstanceOf(DomainRuleError)
            accepted = false
          }
          expect(accepted).toBe(q > 0n && q % lotSize === 0n)
        },
      ),
    )
  })

  it('rounds down to whole lots, never to zero (property)', () => {
    expect(roundDownToLots(toStockQuantity(250n), 100n)).toBe(200n)
    expect(domainError(() => roundDownToLots(toStockQuantity(99n), 100n)).code).toBe('BELOW_ONE_LOT')
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 9n }),
        fc.bigInt({ min: 1n, max: 2000n }),
        (q, lotSize) => {
          if (q < lotSize) {
            expect(domainError(() => roundDownToLots(toStockQuantity(q), lotSize)).code).toBe('BELOW_ONE_LOT')
            return
          }
          const result = roundDownToLots(toStockQuantity(q), lotSize)
          expect(() => assertLotMultiple({ quantity: result, lotSize })).not.toThrow()
          expect(result <= q && q - result < lotSize).toBe(true)
        },
      ),
    )
  })
})

describe('whole shares (KR)', () => {
  it('rejects ShareToken quantities on KR only', () => {
    expect(() =>
      assertWholeShares({ market: 'krex', token: 'stock', quantity: toStockQuantity(3n) }),
    ).not.toThrow()
    const error = domainError(() =>
      assertWholeShares({ market: 'krex', token: 'share', quantity: parseShareQuantity('0.5') }),
    )
    expect(error.code).toBe('FRACTIONAL_SHARES')
    expect(error.shortMessage).toContain('whole shares')
    expect(
      domainError(() =>
        assertWholeShares({ market: 'krex', token: 'share', quantity: parseShareQuantity('2') }),
      ).code,
    ).toBe('FRACTIONAL_SHARES')
    expect(() =>
      assertWholeShares({ market: 'usex', token: 'share', quantity: parseShareQuantity('0.5') }),
    ).not.toThrow()
  })

  it('combines market quantity rules in assertOrderQuantity', () => {
    const stock = (q: bigint) => ({ token: 'stock', quantity: toStockQuantity(q) }) as const
    expect(() => assertOrderQuantity({ market: 'hkex', lotSize: 500n, ...stock(1000n) })).not.toThrow()
    expect(
      domainError(() => assertOrderQuantity({ market: 'hkex', lotSize: 500n, ...stock(750n) })).code,
    ).toBe('NOT_LOT_MULTIPLE')
    expect(domainError(() => assertOrderQuantity({ market: 'hkex', ...stock(500n) })).code).toBe(
      'BAD_LOT_SIZE',
    )
    expect(() => assertOrderQuantity({ market: 'krex', ...stock(7n) })).not.toThrow()
    expect(
      domainError(() =>
        assertOrderQuantity({ market: 'krex', token: 'share', quantity: toShareQuantity(1n) }),
      ).code,
    ).toBe('FRACTIONAL_SHARES')
    expect(() =>
      assertOrderQuantity({ market: 'usex', token: 'share', quantity: parseShareQuantity('0.1') }),
    ).not.toThrow()
    expect(
      domainError(() =>
        assertOrderQuantity({ market: 'usex', token: 'share', quantity: toShareQuantity(0n) }),
      ).code,
    ).toBe('ROUNDS_TO_ZERO')
  })
})
