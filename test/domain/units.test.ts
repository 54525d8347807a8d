import {
  type AssetAmount,
  type Price,
  type ShareQuantity,
  type StockQuantity,
  toAssetAmount,
  toPrice,
  toShareQuantity,
  toStockQuantity,
} from '@stockroute/client/domain/units.js'
import { describe, expect, it } from 'vitest'
import { domainError } from '../helpers/domainErrors.js'

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
})
