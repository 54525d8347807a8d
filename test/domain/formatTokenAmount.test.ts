import {
  formatAssetAmount,
  formatStockQuantity,
  formatTokenAmount,
} from '@stockroute/client/domain/formatTokenAmount.js'
import {
  assetPriceInMarketCurrency,
  localCurrencyPrice,
} from '@stockroute/client/domain/priceInMarketCurrency.js'
import { defaultFxRates } from '@stockroute/client/domain/quotePrice.js'
import { describe, expect, it } from 'vitest'
import { formatAmount } from '../../src/report/formatAmount.js'

describe('formatTokenAmount', () => {
  it('shows 6-decimal assets and whole shares exactly, trailing zeros trimmed', () => {
    expect(formatTokenAmount(912_631_720n, 6)).toBe('912.63172')
    expect(formatTokenAmount(228_087_860n, 6)).toBe('228.08786')
    expect(formatTokenAmount(4n, 0)).toBe('4')
    expect(formatTokenAmount(-15n, 0)).toBe('-15')
  })

  it('trims 18-decimal noise to at most 6 decimals, never to "0" for dust', () => {
    expect(formatTokenAmount(500_000_000_000_000_000n, 18)).toBe('0.5')
    expect(formatTokenAmount(226_753_020_123_456_789_000n, 18)).toBe('226.75302')
    expect(formatTokenAmount(12_345_678_901n, 18)).toBe('0.0000000123457')
  })

  it('follows the reports’ rules exactly', () => {
    for (const [value, decimals] of [
      [1_234_567_890_123_456_789n, 18],
      [-1_234_560_000n, 6],
      [5n, 18],
      [0n, 18],
      [999_999_999_999_999_999n, 18],
    ] as const)
      expect(formatTokenAmount(value, decimals)).toBe(formatAmount(value, decimals))
  })

  it('names the unit: asset symbol, or the ticker of the quantity', () => {
    expect(formatAssetAmount(912_631_720n, { symbol: 'USDC', decimals: 6 })).toBe('912.63172 USDC')
    expect(formatStockQuantity(5n * 10n ** 17n, { tokenKind: 'share', ticker: 'AAPLs' })).toBe('0.5 AAPLs')
    expect(formatStockQuantity(100n, { tokenKind: 'stock', ticker: '0700' })).toBe('100 0700')
  })
})

describe('prices in the market currency', () => {
  it('converts an asset price per share at the FX rate (HKD, KRW), none for US stocks', () => {
    expect(assetPriceInMarketCurrency(53_790_100n, 6, defaultFxRates.hkex)).toBe(41_860_000_000n)
    const hk = { assetPrice: 53_790_100n, assetDecimals: 6, fxRates: defaultFxRates }
    expect(localCurrencyPrice({ ...hk, market: 'hkex' })).toBe('418.6 HKD')
    expect(
      localCurrencyPrice({
        assetPrice: 51_120_000_000_000_000_000n,
        assetDecimals: 18,
        market: 'krex',
        fxRates: defaultFxRates,
      }),
    ).toBe('71000 KRW')
    expect(localCurrencyPrice({ ...hk, market: 'usex' })).toBeUndefined()
  })
})
