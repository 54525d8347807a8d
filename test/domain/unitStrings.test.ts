import {
  formatAssetAmount,
  formatPrice,
  formatShareQuantity,
  formatStockQuantity,
  formatTokenShares,
  parseAssetAmount,
  parsePrice,
  parseShareQuantity,
  parseStockQuantity,
} from '@stockroute/client/domain/unitStrings.js'
import {
  assetDecimalsOf,
  priceDecimals,
  toAssetAmount,
  toPrice,
  toShareQuantity,
  toStockQuantity,
} from '@stockroute/client/domain/units.js'
import fc from 'fast-check'
import { formatUnits, parseUnits } from 'viem'
import { describe, expect, it } from 'vitest'
import { domainError } from '../helpers/domainErrors.js'

const nonNegative = fc.bigInt({ min: 0n, max: 10n ** 40n })

/** A canonical decimal string with at most `decimals` fraction digits, no trailing zeros. */
function canonicalDecimal(decimals: number) {
  return fc
    .tuple(fc.bigInt({ min: 0n, max: 10n ** 15n }), fc.bigInt({ min: 0n, max: 10n ** BigInt(decimals) - 1n }))
    .map(([integer, fraction]) => {
      const digits = fraction.toString().padStart(decimals, '0').replace(/0+$/, '')
      return digits === '' ? integer.toString() : `${integer}.${digits}`
    })
}

describe('parsePrice / formatPrice', () => {
  it('uses 8 decimals', () => {
    expect(priceDecimals).toBe(8)
    expect(parsePrice('418.6')).toBe(41_860_000_000n)
    expect(parsePrice('0.00000001')).toBe(1n)
    expect(parsePrice('56300')).toBe(5_630_000_000_000n)
  })

  it('formats canonically', () => {
    expect(formatPrice(parsePrice('418.60'))).toBe('418.6')
    expect(formatPrice(parsePrice('56300'))).toBe('56300')
    expect(formatPrice(parsePrice('56300.000'))).toBe('56300')
    expect(formatPrice(parsePrice('0.001'))).toBe('0.001')
    expect(formatPrice(parsePrice('0'))).toBe('0')
    expect(formatPrice(toPrice(1n))).toBe('0.00000001')
  })

  it('accepts trailing zeros beyond 8 places (no precision is lost)', () => {
    expect(parsePrice('1.000000000000')).toBe(100_000_000n)
  })

  it.each([
    ['', 'empty'],
    ['-1', 'negative'],
    ['-0.5', 'negative'],
    ['1e3', 'exponent'],
    ['1.5E-3', 'exponent'],
    ['1.123456789', 'too-many-decimals'],
    ['0.000000001', 'too-many-decimals'],
    [' 1', 'whitespace'],
    ['1 ', 'whitespace'],
    ['+1', 'syntax'],
    ['1.', 'syntax'],
    ['.5', 'syntax'],
    ['1,000', 'syntax'],
    ['0x10', 'syntax'],
    ['abc', 'syntax'],
    ['NaN', 'syntax'],
    ['Infinity', 'syntax'],
    ['1.2.3', 'syntax'],
  ])('rejects %j with BAD_DECIMAL (%s)', (text, reason) => {
    const error = domainError(() => parsePrice(text))
    expect(error.code).toBe('BAD_DECIMAL')
    expect(error.details.reason).toBe(reason)
    expect(error.shortMessage).toContain('Price')
  })

  it('round-trips every price (property)', () => {
    fc.assert(
      fc.property(nonNegative, (value) => {
        const price = toPrice(value)
        expect(parsePrice(formatPrice(price))).toBe(price)
      }),
    )
  })

  it('formats a parsed canonical string back to itself (property)', () => {
    fc.assert(
      fc.property(canonicalDecimal(8), (text) => {
        expect(formatPrice(parsePrice(text))).toBe(text)
      }),
    )
  })

  it('rejects every string with a 9th significant decimal (property)', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 12n }),
        fc.stringMatching(/^[0-9]{8}$/),
        fc.integer({ min: 1, max: 9 }),
        (integer, eightDigits, ninth) => {
          const error = domainError(() => parsePrice(`${integer}.${eightDigits}${ninth}`))
          expect(error.code).toBe('BAD_DECIMAL')
          expect(error.details.reason).toBe('too-many-decimals')
        },
      ),
    )
  })
})

describe('stock quantities', () => {
  it('parses whole shares', () => {
    expect(parseStockQuantity('200')).toBe(200n)
    expect(parseStockQuantity('200.00')).toBe(200n)
    expect(formatStockQuantity(toStockQuantity(200n))).toBe('200')
  })

  it('rejects fractions with FRACTIONAL_SHARES, syntax with BAD_DECIMAL', () => {
    expect(domainError(() => parseStockQuantity('1.5')).code).toBe('FRACTIONAL_SHARES')
    expect(domainError(() => parseStockQuantity('0.01')).code).toBe('FRACTIONAL_SHARES')
    expect(domainError(() => parseStockQuantity('1e2')).code).toBe('BAD_DECIMAL')
    expect(domainError(() => parseStockQuantity('-3')).code).toBe('BAD_DECIMAL')
  })

  it('round-trips (property)', () => {
    fc.assert(
      fc.property(nonNegative, (value) => {
        const quantity = toStockQuantity(value)
        expect(parseStockQuantity(formatStockQuantity(quantity))).toBe(quantity)
      }),
    )
  })
})

describe('share quantities', () => {
  it('parses 18-decimal units', () => {
    expect(parseShareQuantity('0.5')).toBe(500_000_000_000_000_000n)
    expect(parseShareQuantity('1')).toBe(10n ** 18n)
    expect(parseShareQuantity('0.000000000000000001')).toBe(1n)
    expect(formatShareQuantity(toShareQuantity(1n))).toBe('0.000000000000000001')
  })

  it('rejects a 19th decimal', () => {
    const error = domainError(() => parseShareQuantity('0.0000000000000000001'))
    expect(error.code).toBe('BAD_DECIMAL')
    expect(error.details.reason).toBe('too-many-decimals')
  })

  it('round-trips (property)', () => {
    fc.assert(
      fc.property(nonNegative, (value) => {
        const quantity = toShareQuantity(value)
        expect(parseShareQuantity(formatShareQuantity(quantity))).toBe(quantity)
      }),
    )
    fc.assert(
      fc.property(canonicalDecimal(18), (text) => {
        expect(formatShareQuantity(parseShareQuantity(text))).toBe(text)
      }),
    )
  })
})

describe('formatTokenShares', () => {
  it('reads base units as whole shares of a StockToken and 18-decimal fractions of a ShareToken', () => {
    expect(formatTokenShares('stock', 200n)).toBe('200')
    expect(formatTokenShares('share', 500_000_000_000_000_000n)).toBe('0.5')
    expect(formatTokenShares('share', 3n * 10n ** 18n + 1n)).toBe('3.000000000000000001')
    expect(formatTokenShares('share', 200n)).toBe('0.0000000000000002')
  })
})

describe('asset amounts', () => {
  it('parses in the asset decimals of the chain', () => {
    expect(parseAssetAmount('12.5', 6)).toBe(12_500_000n)
    expect(parseAssetAmount('12.5', 18)).toBe(12_500_000_000_000_000_000n)
    expect(formatAssetAmount(toAssetAmount(12_500_000n), 6)).toBe('12.5')
    expect(domainError(() => parseAssetAmount('0.0000001', 6)).code).toBe('BAD_DECIMAL')
  })

  it('rejects invalid decimals with BAD_DECIMALS', () => {
    for (const decimals of [-1, 1.5, 37, Number.NaN])
      expect(domainError(() => parseAssetAmount('1', decimals)).code).toBe('BAD_DECIMALS')
    expect(assetDecimalsOf(18)).toBe(18)
  })

  it('round-trips for 6 and 18 decimals (property)', () => {
    fc.assert(
      fc.property(nonNegative, fc.constantFrom(6, 18), (value, decimals) => {
        const amount = toAssetAmount(value)
        expect(parseAssetAmount(formatAssetAmount(amount, decimals), decimals)).toBe(amount)
      }),
    )
  })
})

describe("against viem's formatUnits / parseUnits (an independent implementation)", () => {
  const decimalsArbitrary = fc.constantFrom(0, 6, 8, 18)

  it('formats every amount as viem does, at 0, 6, 8 and 18 decimals', () => {
    fc.assert(
      fc.property(nonNegative, decimalsArbitrary, (value, decimals) => {
        const expected = formatUnits(value, decimals)
        if (decimals === 0) expect(formatStockQuantity(toStockQuantity(value))).toBe(expected)
        if (decimals === 18) expect(formatShareQuantity(toShareQuantity(value))).toBe(expected)
        if (decimals === 8) expect(formatPrice(toPrice(value))).toBe(expected)
        expect(formatAssetAmount(toAssetAmount(value), decimals)).toBe(expected)
      }),
      { numRuns: 2_000 },
    )
  })

  it('parses every decimal it accepts to what viem parses', () => {
    fc.assert(
      fc.property(
        decimalsArbitrary.chain((decimals) => fc.tuple(fc.constant(decimals), canonicalDecimal(decimals))),
        fc.nat({ max: 3 }),
        ([decimals, text], trailingZeros) => {
          const written =
            text.includes('.') || trailingZeros === 0 ? `${text}${'0'.repeat(trailingZeros)}` : text
          expect(parseAssetAmount(written, decimals)).toBe(parseUnits(written, decimals))
        },
      ),
      { numRuns: 2_000 },
    )
  })
})
