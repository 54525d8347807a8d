import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { DomainRuleError } from '../../src/domain/domainRuleError.js'
import {
  assetAmountForShares,
  assetAmountForStock,
  divideRounded,
  priceToAssetAmount,
  rescaleAssetAmount,
  shareToStockQuantity,
  stockToShareQuantity,
} from '../../src/domain/unitConversions.js'
import {
  formatAssetAmount,
  formatPrice,
  formatShareQuantity,
  formatStockQuantity,
  parseAssetAmount,
  parsePrice,
  parseShareQuantity,
  parseStockQuantity,
} from '../../src/domain/unitStrings.js'
import {
  type AssetAmount,
  assetDecimalsOf,
  type Price,
  priceDecimals,
  type ShareQuantity,
  type StockQuantity,
  toAssetAmount,
  toPrice,
  toShareQuantity,
  toStockQuantity,
} from '../../src/domain/units.js'
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

describe('DomainRuleError', () => {
  it('carries a stable code, a short message, details and a cause', () => {
    const cause = new Error('inner')
    const error = new DomainRuleError({
      code: 'OFF_TICK',
      shortMessage: 'bad tick',
      details: { price: '1' },
      cause,
    })
    expect(error).toBeInstanceOf(Error)
    expect(error.name).toBe('DomainRuleError')
    expect(error.code).toBe('OFF_TICK')
    expect(error.message).toBe('bad tick')
    expect(error.shortMessage).toBe('bad tick')
    expect(error.details).toEqual({ price: '1' })
    expect(error.cause).toBe(cause)
  })
})

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

  it('converts between share units and whole shares with explicit rounding', () => {
    expect(stockToShareQuantity(toStockQuantity(2n))).toBe(2n * 10n ** 18n)
    expect(shareToStockQuantity(parseShareQuantity('2.5'), 'down')).toBe(2n)
    expect(shareToStockQuantity(parseShareQuantity('2.5'), 'up')).toBe(3n)
    expect(shareToStockQuantity(parseShareQuantity('2'), 'up')).toBe(2n)
    expect(shareToStockQuantity(toShareQuantity(0n), 'down')).toBe(0n)
    expect(domainError(() => shareToStockQuantity(parseShareQuantity('0.9'), 'down')).code).toBe(
      'ROUNDS_TO_ZERO',
    )
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

  it('rescales between chains, rounds explicitly, never silently to zero', () => {
    const oneAndAHalf = toAssetAmount(1_500_000n)
    expect(
      rescaleAssetAmount({ amount: oneAndAHalf, fromDecimals: 6, toDecimals: 18, direction: 'down' }),
    ).toBe(1_500_000_000_000_000_000n)
    const odd = toAssetAmount(1_500_000_000_000_000_001n)
    expect(rescaleAssetAmount({ amount: odd, fromDecimals: 18, toDecimals: 6, direction: 'down' })).toBe(
      1_500_000n,
    )
    expect(rescaleAssetAmount({ amount: odd, fromDecimals: 18, toDecimals: 6, direction: 'up' })).toBe(
      1_500_001n,
    )
    const dust = toAssetAmount(999_999_999_999n)
    expect(
      domainError(() =>
        rescaleAssetAmount({ amount: dust, fromDecimals: 18, toDecimals: 6, direction: 'down' }),
      ).code,
    ).toBe('ROUNDS_TO_ZERO')
    expect(rescaleAssetAmount({ amount: dust, fromDecimals: 18, toDecimals: 6, direction: 'up' })).toBe(1n)
  })

  it('rescale brackets the exact value (property)', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 10n ** 12n, max: 10n ** 30n }), (value) => {
        const amount = toAssetAmount(value)
        const down = rescaleAssetAmount({ amount, fromDecimals: 18, toDecimals: 6, direction: 'down' })
        const up = rescaleAssetAmount({ amount, fromDecimals: 18, toDecimals: 6, direction: 'up' })
        expect(down * 10n ** 12n <= value).toBe(true)
        expect(up * 10n ** 12n >= value).toBe(true)
        expect(up - down).toBe(value % 10n ** 12n === 0n ? 0n : 1n)
      }),
    )
  })

  it('converts a price into asset base units per share', () => {
    expect(priceToAssetAmount({ price: parsePrice('418.6'), assetDecimals: 6, direction: 'down' })).toBe(
      418_600_000n,
    )
    expect(priceToAssetAmount({ price: parsePrice('418.6'), assetDecimals: 18, direction: 'down' })).toBe(
      418_600_000_000_000_000_000n,
    )
    const fine = parsePrice('0.1234567')
    expect(priceToAssetAmount({ price: fine, assetDecimals: 6, direction: 'down' })).toBe(123_456n)
    expect(priceToAssetAmount({ price: fine, assetDecimals: 6, direction: 'up' })).toBe(123_457n)
    const tiny = parsePrice('0.00000001')
    expect(
      domainError(() => priceToAssetAmount({ price: tiny, assetDecimals: 6, direction: 'down' })).code,
    ).toBe('ROUNDS_TO_ZERO')
    expect(priceToAssetAmount({ price: tiny, assetDecimals: 6, direction: 'up' })).toBe(1n)
  })

  it('prices stock and share quantities', () => {
    const price = toAssetAmount(418_600_000n)
    expect(assetAmountForStock({ quantity: toStockQuantity(100n), pricePerShareInAsset: price })).toBe(
      41_860_000_000n,
    )
    const half = parseShareQuantity('0.5')
    const three = toAssetAmount(3n)
    expect(assetAmountForShares({ quantity: half, pricePerShareInAsset: three, direction: 'down' })).toBe(1n)
    expect(assetAmountForShares({ quantity: half, pricePerShareInAsset: three, direction: 'up' })).toBe(2n)
    const speck = toShareQuantity(1n)
    expect(
      domainError(() =>
        assetAmountForShares({ quantity: speck, pricePerShareInAsset: three, direction: 'down' }),
      ).code,
    ).toBe('ROUNDS_TO_ZERO')
  })
})

describe('brands and arithmetic', () => {
  it('rejects negative values with NEGATIVE_AMOUNT', () => {
    expect(domainError(() => toStockQuantity(-1n)).code).toBe('NEGATIVE_AMOUNT')
    expect(domainError(() => toShareQuantity(-1n)).code).toBe('NEGATIVE_AMOUNT')
    expect(domainError(() => toAssetAmount(-1n)).code).toBe('NEGATIVE_AMOUNT')
    expect(domainError(() => toPrice(-1n)).code).toBe('NEGATIVE_AMOUNT')
  })

  it('keeps units apart at compile time', () => {
    const stock: StockQuantity = toStockQuantity(1n)
    const share: ShareQuantity = toShareQuantity(1n)
    const asset: AssetAmount = toAssetAmount(1n)
    const price: Price = toPrice(1n)
    // @ts-expect-error a ShareToken quantity is not a StockToken quantity
    const wrongStock: StockQuantity = share
    // @ts-expect-error an asset amount is not a price
    const wrongPrice: Price = asset
    // @ts-expect-error a plain bigint has no unit
    const plain: StockQuantity = 1n
    expect([stock, wrongStock, wrongPrice, plain, price]).toHaveLength(5)
  })

  it('divides with explicit rounding (property)', () => {
    fc.assert(
      fc.property(nonNegative, fc.bigInt({ min: 1n, max: 10n ** 20n }), (numerator, denominator) => {
        const down = divideRounded(numerator, denominator, 'down')
        const up = divideRounded(numerator, denominator, 'up')
        expect(down * denominator <= numerator && numerator < (down + 1n) * denominator).toBe(true)
        expect((up - 1n) * denominator < numerator && numerator <= up * denominator).toBe(true)
      }),
    )
    expect(() => divideRounded(1n, 0n, 'down')).toThrow(RangeError)
  })
})
