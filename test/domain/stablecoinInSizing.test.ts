import { assertLotMultiple } from '@stockroute/client/domain/quantityRules.js'
import {
  quantityForStablecoinIn,
  shareQuantityForStablecoinIn,
} from '@stockroute/client/domain/stablecoinInSizing.js'
import { parseAssetAmount, parseShareQuantity } from '@stockroute/client/domain/unitStrings.js'
import { toAssetAmount } from '@stockroute/client/domain/units.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { domainError } from '../helpers/domainErrors.js'

describe('quantityForStablecoinIn (HK lots)', () => {
  it('buys whole lots and charges only what they cost', () => {
    const result = quantityForStablecoinIn({
      assetAmount: parseAssetAmount('100000', 6),
      assetDecimals: 6,
      pricePerShareInAsset: parseAssetAmount('418.6', 6),
      lotSize: 100n,
    })
    expect(result).toEqual({ quantity: 200n, amountUsed: parseAssetAmount('83720', 6) })
  })

  it('returns no quantity when one lot is not covered', () => {
    const error = domainError(() =>
      quantityForStablecoinIn({
        assetAmount: parseAssetAmount('41859.999999', 6),
        assetDecimals: 6,
        pricePerShareInAsset: parseAssetAmount('418.6', 6),
        lotSize: 100n,
      }),
    )
    expect(error.code).toBe('BELOW_ONE_LOT')
    expect(error.shortMessage).toContain('41860')
    expect(
      quantityForStablecoinIn({
        assetAmount: parseAssetAmount('41860', 6),
        assetDecimals: 6,
        pricePerShareInAsset: parseAssetAmount('418.6', 6),
        lotSize: 100n,
      }).quantity,
    ).toBe(100n)
  })

  it('validates its inputs', () => {
    const base = {
      assetAmount: toAssetAmount(10n ** 12n),
      assetDecimals: 6,
      pricePerShareInAsset: toAssetAmount(1_000_000n),
      lotSize: 100n,
    }
    expect(domainError(() => quantityForStablecoinIn({ ...base, lotSize: 0n })).code).toBe('BAD_LOT_SIZE')
    expect(domainError(() => quantityForStablecoinIn({ ...base, assetDecimals: 99 })).code).toBe(
      'BAD_DECIMALS',
    )
    expect(
      domainError(() => quantityForStablecoinIn({ ...base, pricePerShareInAsset: toAssetAmount(0n) })).code,
    ).toBe('PRICE_OUT_OF_RANGE')
  })

  it('never spends more than given and leaves less than one lot unused (property)', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 30n }),
        fc.constantFrom(6, 18),
        fc.bigInt({ min: 1n, max: 10n ** 22n }),
        fc.constantFrom(1n, 100n, 200n, 400n, 500n, 1000n, 2000n),
        (amount, assetDecimals, price, lotSize) => {
          const parameters = {
            assetAmount: toAssetAmount(amount),
            assetDecimals,
            pricePerShareInAsset: toAssetAmount(price),
            lotSize,
          }
          const lotCost = price * lotSize
          if (amount < lotCost) {
            expect(domainError(() => quantityForStablecoinIn(parameters)).code).toBe('BELOW_ONE_LOT')
            return
          }
          const { quantity, amountUsed } = quantityForStablecoinIn(parameters)
          expect(() => assertLotMultiple({ quantity, lotSize })).not.toThrow()
          expect(amountUsed).toBe(quantity * price)
          expect(amountUsed <= amount).toBe(true)
          expect(amount - amountUsed < lotCost).toBe(true)
        },
      ),
    )
  })
})

describe('shareQuantityForStablecoinIn (fractional buys)', () => {
  it('buys the largest 18-decimal quantity and charges its cost rounded up', () => {
    expect(
      shareQuantityForStablecoinIn({
        assetAmount: parseAssetAmount('100', 6),
        assetDecimals: 6,
        pricePerShareInAsset: parseAssetAmount('400', 6),
      }),
    ).toEqual({ quantity: parseShareQuantity('0.25'), amountUsed: parseAssetAmount('100', 6) })
    // 1 unit of a 6-decimal asset at 3 units per share: 1/3 share, floor to 18 decimals.
    const third = shareQuantityForStablecoinIn({
      assetAmount: toAssetAmount(1n),
      assetDecimals: 6,
      pricePerShareInAsset: toAssetAmount(3n),
    })
    expect(third.quantity).toBe(333_333_333_333_333_333n)
    expect(third.amountUsed).toBe(1n)
    // 18-decimal asset, 10 wei at 418.6 per share: 10 * 1e18 / 418.6e18 < 1 ShareToken unit.
    const error = domainError(() =>
      shareQuantityForStablecoinIn({
        assetAmount: toAssetAmount(10n),
        assetDecimals: 18,
        pricePerShareInAsset: parseAssetAmount('418.6', 18),
      }),
    )
    expect(error.code).toBe('ROUNDS_TO_ZERO')
  })

  it('never spends more than given, never charges less than the value, is maximal (property)', () => {
    const one = 10n ** 18n
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 30n }),
        fc.constantFrom(6, 18),
        fc.bigInt({ min: 1n, max: 10n ** 24n }),
        (amount, assetDecimals, price) => {
          const parameters = {
            assetAmount: toAssetAmount(amount),
            assetDecimals,
            pricePerShareInAsset: toAssetAmount(price),
          }
          if (amount * one < price) {
            expect(domainError(() => shareQuantityForStablecoinIn(parameters)).code).toBe('ROUNDS_TO_ZERO')
            return
          }
          const { quantity, amountUsed } = shareQuantityForStablecoinIn(parameters)
          const exactCostTimesOne = quantity * price
          expect(quantity > 0n).toBe(true)
          expect(amountUsed <= amount).toBe(true)
          // Rounded up: at least the exact cost, less than one base unit above it.
          expect(amountUsed * one >= exactCostTimesOne).toBe(true)
          expect(amountUsed * one < exactCostTimesOne + one).toBe(true)
          // Maximal: one more ShareToken unit would cost more than the amount.
          expect((quantity + 1n) * price > amount * one).toBe(true)
        },
      ),
    )
  })
})
