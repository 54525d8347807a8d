import {
  assetAmountForShares,
  assetAmountForStock,
  divideRounded,
  priceToAssetAmount,
  rescaleAssetAmount,
  shareToStockQuantity,
  stockToShareQuantity,
} from '@stockroute/client/domain/unitConversions.js'
import { parsePrice, parseShareQuantity } from '@stockroute/client/domain/unitStrings.js'
import { toAssetAmount, toShareQuantity, toStockQuantity } from '@stockroute/client/domain/units.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { domainError } from '../helpers/domainErrors.js'

const nonNegative = fc.bigInt({ min: 0n, max: 10n ** 40n })

describe('share quantities', () => {
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
