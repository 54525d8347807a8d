import {
  divideHalfAway,
  type FillAmounts,
  fillPriceInMarketCurrency,
  fillPricePerShare,
  formatCentiBps,
  slippageVsMarketCentiBps,
  slippageVsQuoteCentiBps,
} from '@stockroute/client/domain/fillSlippage.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'

// The fills report's arithmetic. Every expected figure here is either worked out by hand (the
// arithmetic in the comment beside it) or checked against another method: a defining property of
// the rounding, or JS floating point within the half unit the exact rounding may differ by. None
// re-runs the module's own formula, so a wrong formula fails.

/** 1 USD per USD, 0.1285 USD per HKD, 0.00072 USD per KRW: FX rates scaled 1e8. */
const fx = { usd: 100_000_000n, hkd: 12_850_000n, krw: 72_000n } as const

/** A buy (unless told) of `stockAmount` StockTokens for `assetAmount` of a 6-decimal asset, in base units. */
function fill(parts: Partial<FillAmounts> & Pick<FillAmounts, 'assetAmount' | 'stockAmount'>): FillAmounts {
  return { isBuy: true, tokenKind: 'stock', assetDecimals: 6, ...parts }
}

describe('divideHalfAway', () => {
  it('rounds to the nearest integer, halves away from zero (by hand)', () => {
    expect(divideHalfAway(5n, 2n)).toBe(3n) // 2.5 → 3
    expect(divideHalfAway(-5n, 2n)).toBe(-3n) // -2.5 → -3
    expect(divideHalfAway(7n, 2n)).toBe(4n) // 3.5 → 4
    expect(divideHalfAway(-10n, 4n)).toBe(-3n) // -2.5 → -3
    expect(divideHalfAway(1n, 3n)).toBe(0n) // 0.33 → 0
    expect(divideHalfAway(-1n, 3n)).toBe(0n) // -0.33 → 0
    expect(divideHalfAway(2n, 3n)).toBe(1n) // 0.67 → 1
    expect(divideHalfAway(-2n, 3n)).toBe(-1n) // -0.67 → -1
    expect(divideHalfAway(9n, 3n)).toBe(3n)
    expect(divideHalfAway(0n, 7n)).toBe(0n)
  })

  it('refuses a zero or negative denominator', () => {
    expect(() => divideHalfAway(1n, 0n)).toThrow(RangeError)
    expect(() => divideHalfAway(1n, -2n)).toThrow(RangeError)
  })

  it('is the nearest integer, ties away from zero (property)', () => {
    // The definition, checked without dividing: r is within half a unit of n/d
    // (|n − r·d| ≤ d/2), and on a tie |r·d| lies beyond |n|.
    fc.assert(
      fc.property(
        fc.bigInt({ min: -(10n ** 30n), max: 10n ** 30n }),
        fc.bigInt({ min: 1n, max: 10n ** 20n }),
        (numerator, denominator) => {
          const rounded = divideHalfAway(numerator, denominator)
          const twiceDistance = 2n * abs(numerator - rounded * denominator)
          expect(twiceDistance <= denominator).toBe(true)
          if (twiceDistance === denominator) expect(abs(rounded * denominator) > abs(numerator)).toBe(true)
        },
      ),
    )
  })
})

describe('fillPricePerShare', () => {
  it('is the asset side over the shares, in asset base units per whole share (by hand)', () => {
    // 1.001 USDC for 2 shares: 1_001_000 / 2 = 500_500.
    expect(fillPricePerShare(fill({ assetAmount: 1_001_000n, stockAmount: 2n }))).toBe(500_500n)
    // 1.000001 USDC for 2 shares: 500_000.5 → 500_001 (half away from zero).
    expect(fillPricePerShare(fill({ assetAmount: 1_000_001n, stockAmount: 2n }))).toBe(500_001n)
    // 1 USDC for 3 shares: 333_333.33 → 333_333; 2 USDC for 3: 666_666.67 → 666_667.
    expect(fillPricePerShare(fill({ assetAmount: 1_000_000n, stockAmount: 3n }))).toBe(333_333n)
    expect(fillPricePerShare(fill({ assetAmount: 2_000_000n, stockAmount: 3n }))).toBe(666_667n)
    // Half a ShareToken (5e17 of 1e18) for 113.74 USDC: 227.48 USDC a whole share.
    expect(
      fillPricePerShare(
        fill({ tokenKind: 'share', assetAmount: 113_740_000n, stockAmount: 5n * 10n ** 17n }),
      ),
    ).toBe(227_480_000n)
  })

  it('a fill of no shares has no price', () => {
    expect(() => fillPricePerShare(fill({ assetAmount: 1n, stockAmount: 0n }))).toThrow(RangeError)
  })
})

describe('fillPriceInMarketCurrency', () => {
  it('converts the price per share at the FX rate, scaled 1e8 (by hand)', () => {
    // 1 share of 0700 for 53.7901 USDC at 0.1285 USD/HKD: 53.7901 / 0.1285 = 418.6 HKD.
    const tencent = fill({ assetAmount: 53_790_100n, stockAmount: 1n })
    expect(fillPriceInMarketCurrency(tencent, fx.hkd)).toBe(41_860_000_000n)
    // The same in an 18-decimal asset: 53.7901e18 base units, the same 418.6 HKD.
    const in18 = fill({ assetDecimals: 18, assetAmount: 53_790_100n * 10n ** 12n, stockAmount: 1n })
    expect(fillPriceInMarketCurrency(in18, fx.hkd)).toBe(41_860_000_000n)
    // 1 USDC a share: 1 / 0.1285 = 7.782101167315… HKD → 778_210_116.73 (1e8) → 778_210_117.
    expect(fillPriceInMarketCurrency(fill({ assetAmount: 1_000_000n, stockAmount: 1n }), fx.hkd)).toBe(
      778_210_117n,
    )
    // 72 USDC for 2 shares of 005930 at 0.00072 USD/KRW: 36 / 0.00072 = 50,000 KRW.
    expect(fillPriceInMarketCurrency(fill({ assetAmount: 72_000_000n, stockAmount: 2n }), fx.krw)).toBe(
      5_000_000_000_000n,
    )
  })
})

describe('slippageVsQuoteCentiBps', () => {
  it('is zero when the fill delivers exactly what the quote promised', () => {
    expect(slippageVsQuoteCentiBps({ filledOut: 4n, quotedOut: 4n })).toBe(0n)
    expect(slippageVsQuoteCentiBps({ filledOut: 454_508_436n, quotedOut: 454_508_436n })).toBe(0n)
  })

  it('a buy (out: shares) that got fewer shares than quoted is positive, more is negative (by hand)', () => {
    // Quoted 100 shares, filled 99: 1/100 = 1% = 100 bps = 10_000 centi-bps.
    expect(slippageVsQuoteCentiBps({ filledOut: 99n, quotedOut: 100n })).toBe(10_000n)
    // Quoted 1 ShareToken (1e18), filled 0.9995: 0.0005 = 5 bps = 500.
    const share = 10n ** 18n
    expect(slippageVsQuoteCentiBps({ filledOut: 9_995n * 10n ** 14n, quotedOut: share })).toBe(500n)
    // Quoted 4 shares, filled 5: (4 − 5)/4 = −25% = −2,500 bps = −250_000.
    expect(slippageVsQuoteCentiBps({ filledOut: 5n, quotedOut: 4n })).toBe(-250_000n)
  })

  it('a sell (out: the asset) that got less than quoted is positive, more is negative (by hand)', () => {
    // Quoted 200 USDC, filled 199.75: 0.25/200 = 12.5 bps = 1_250.
    expect(slippageVsQuoteCentiBps({ filledOut: 199_750_000n, quotedOut: 200_000_000n })).toBe(1_250n)
    // Quoted 200 USDC, filled 200.012345: −0.012345/200 = −0.61725 bps = −61.725 → −62.
    expect(slippageVsQuoteCentiBps({ filledOut: 200_012_345n, quotedOut: 200_000_000n })).toBe(-62n)
  })

  it('rounds half a centi-bp away from zero, either way (by hand)', () => {
    // Quoted 2 USDC, one base unit short: 1e-6/2 = 0.5e-6 = 0.5 centi-bps → 1; one over → −1.
    expect(slippageVsQuoteCentiBps({ filledOut: 1_999_999n, quotedOut: 2_000_000n })).toBe(1n)
    expect(slippageVsQuoteCentiBps({ filledOut: 2_000_001n, quotedOut: 2_000_000n })).toBe(-1n)
    // Quoted 3 USDC, one unit short: 0.33 → 0.
    expect(slippageVsQuoteCentiBps({ filledOut: 2_999_999n, quotedOut: 3_000_000n })).toBe(0n)
  })

  it('refuses a quote of nothing', () => {
    expect(() => slippageVsQuoteCentiBps({ filledOut: 1n, quotedOut: 0n })).toThrow(RangeError)
  })

  it('matches floating point to within the half unit of its rounding, and its sign follows the shortfall (property)', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 24n }),
        fc.bigInt({ min: 0n, max: 2n * 10n ** 6n }),
        (quotedOut, perMillion) => {
          // Filled anywhere from nothing to twice the quote.
          const filledOut = (quotedOut * perMillion) / 10n ** 6n
          const slippage = slippageVsQuoteCentiBps({ filledOut, quotedOut })
          const approximate = (Number(quotedOut - filledOut) / Number(quotedOut)) * 1e6
          expect(Math.abs(Number(slippage) - approximate)).toBeLessThanOrEqual(0.5 + 1e-6)
          if (filledOut === quotedOut) expect(slippage).toBe(0n)
          if (filledOut < quotedOut) expect(slippage >= 0n).toBe(true)
          if (filledOut > quotedOut) expect(slippage <= 0n).toBe(true)
        },
      ),
    )
  })
})

describe('slippageVsMarketCentiBps', () => {
  const usd = (dollars: number) => BigInt(dollars) * 100_000_000n // a USD market price, 1e8

  it('a buy above the market price is positive, below it negative; a sell the other way round (by hand)', () => {
    // 1 share for 101 USDC against 100 USD: 1% = 100 bps = 10_000; a sell at 101 is 1% better.
    const at101 = fill({ assetAmount: 101_000_000n, stockAmount: 1n })
    expect(slippageVsMarketCentiBps(at101, usd(100), fx.usd)).toBe(10_000n)
    expect(slippageVsMarketCentiBps({ ...at101, isBuy: false }, usd(100), fx.usd)).toBe(-10_000n)
    // At 99: a buy 1% better, a sell 1% worse.
    const at99 = fill({ assetAmount: 99_000_000n, stockAmount: 1n })
    expect(slippageVsMarketCentiBps(at99, usd(100), fx.usd)).toBe(-10_000n)
    expect(slippageVsMarketCentiBps({ ...at99, isBuy: false }, usd(100), fx.usd)).toBe(10_000n)
  })

  it('is zero at the market price, and exactly the fee when the quote priced at the market (by hand)', () => {
    // 4 AAPL at 227.48: 909.92 USDC; the 10 bps fee makes the buyer pay 910.82992 (+10 bps) and
    // leaves the seller 909.01008 (10 bps below the market: +10 bps, worse).
    const atMarket = fill({ assetAmount: 909_920_000n, stockAmount: 4n })
    expect(slippageVsMarketCentiBps(atMarket, 22_748_000_000n, fx.usd)).toBe(0n)
    const bought = fill({ assetAmount: 910_829_920n, stockAmount: 4n })
    expect(slippageVsMarketCentiBps(bought, 22_748_000_000n, fx.usd)).toBe(1_000n)
    const sold = fill({ isBuy: false, assetAmount: 909_010_080n, stockAmount: 4n })
    expect(slippageVsMarketCentiBps(sold, 22_748_000_000n, fx.usd)).toBe(1_000n)
    // 200 shares of 0700 (HKD 418.6, 53.7901 USD): 10_758.02 USDC, plus the fee 10.75802 =
    // 10_768.77802, in an 18-decimal asset: 10_768.77802 / 200 / 0.1285 = 419.0186 HKD, +10 bps.
    const tencent = fill({ assetDecimals: 18, assetAmount: 10_768_778_020n * 10n ** 12n, stockAmount: 200n })
    expect(slippageVsMarketCentiBps(tencent, 41_860_000_000n, fx.hkd)).toBe(1_000n)
    // Half an AAPL ShareToken for 113.85374 (113.74 + its 10 bps) in an 18-decimal asset: +10 bps.
    const share = fill({
      tokenKind: 'share',
      assetDecimals: 18,
      assetAmount: 113_853_740n * 10n ** 12n,
      stockAmount: 5n * 10n ** 17n,
    })
    expect(slippageVsMarketCentiBps(share, 22_748_000_000n, fx.usd)).toBe(1_000n)
  })

  it('rounds its result once, half away from zero (by hand)', () => {
    // 7 shares sold for 1000 USDC (142.857142… each) against 142.9: (142.9 − 142.857142…)/142.9 =
    // 2.9991 bps = 299.91 centi-bps → 300.
    const sold = fill({ isBuy: false, assetAmount: 1_000_000_000n, stockAmount: 7n })
    expect(slippageVsMarketCentiBps(sold, 14_290_000_000n, fx.usd)).toBe(300n)
    // 3 shares bought for 1000 USDC (333.333… each) against 330: 1.0101… % = 10_101.01 → 10_101.
    const bought = fill({ assetAmount: 1_000_000_000n, stockAmount: 3n })
    expect(slippageVsMarketCentiBps(bought, usd(330), fx.usd)).toBe(10_101n)
  })

  it('refuses a zero quantity, market price or FX rate', () => {
    const one = fill({ assetAmount: 1n, stockAmount: 1n })
    expect(() => slippageVsMarketCentiBps({ ...one, stockAmount: 0n }, usd(1), fx.usd)).toThrow(RangeError)
    expect(() => slippageVsMarketCentiBps(one, 0n, fx.usd)).toThrow(RangeError)
    expect(() => slippageVsMarketCentiBps(one, usd(1), 0n)).toThrow(RangeError)
  })

  const fills = fc.record({
    tokenKind: fc.constantFrom<'stock' | 'share'>('stock', 'share'),
    assetDecimals: fc.constantFrom(6, 18),
    assetAmount: fc.bigInt({ min: 1n, max: 10n ** 30n }),
    stockAmount: fc.bigInt({ min: 1n, max: 10n ** 24n }),
  })
  const marketPrices = fc.bigInt({ min: 1n, max: 10n ** 14n })
  const fxRates = fc.constantFrom(fx.usd, fx.hkd, fx.krw)

  it('matches floating point to within the half unit of its rounding (property)', () => {
    fc.assert(
      fc.property(fills, fc.boolean(), marketPrices, fxRates, (amounts, isBuy, marketPrice, fxRate) => {
        const slippage = slippageVsMarketCentiBps({ ...amounts, isBuy }, marketPrice, fxRate)
        // Price per whole share in the market's currency, as floats, over the market price.
        const shares = Number(amounts.stockAmount) / (amounts.tokenKind === 'share' ? 1e18 : 1)
        const price =
          Number(amounts.assetAmount) / 10 ** amounts.assetDecimals / shares / (Number(fxRate) / 1e8)
        const ratio = price / (Number(marketPrice) / 1e8)
        const approximate = (isBuy ? ratio - 1 : 1 - ratio) * 1e6
        // Floating point is off by a few parts in 1e15 of the ratio: far inside half a unit here.
        const tolerance = 0.5 + 1e-8 * (Math.abs(approximate) + 1e6)
        expect(Math.abs(Number(slippage) - approximate)).toBeLessThanOrEqual(tolerance)
      }),
    )
  })

  it('a buy and a sell of the same amounts are opposite; filled exactly at the market it is zero (property)', () => {
    fc.assert(
      fc.property(fills, marketPrices, fxRates, (amounts, marketPrice, fxRate) => {
        const buy = slippageVsMarketCentiBps({ ...amounts, isBuy: true }, marketPrice, fxRate)
        const sell = slippageVsMarketCentiBps({ ...amounts, isBuy: false }, marketPrice, fxRate)
        expect(sell).toBe(-buy)
      }),
    )
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1n, max: 10n ** 6n }),
        marketPrices,
        fxRates,
        fc.boolean(),
        (shares, marketPrice, fxRate, isBuy) => {
          // `shares` whole StockTokens at exactly the market price, in an 18-decimal asset:
          // shares × price (1e8) × fx (1e8) × 1e18 / 1e16 base units, a whole number.
          const assetAmount = shares * marketPrice * fxRate * 100n
          const atMarket = fill({ isBuy, assetDecimals: 18, assetAmount, stockAmount: shares })
          expect(slippageVsMarketCentiBps(atMarket, marketPrice, fxRate)).toBe(0n)
          // One base unit more: a buy pays more (not better), a sell receives more (not worse).
          const above = slippageVsMarketCentiBps(
            { ...atMarket, assetAmount: assetAmount + 1n },
            marketPrice,
            fxRate,
          )
          expect(isBuy ? above >= 0n : above <= 0n).toBe(true)
        },
      ),
    )
  })
})

describe('formatCentiBps', () => {
  it('writes hundredths of a bp as bps, no trailing zeros (by hand)', () => {
    expect(formatCentiBps(0n)).toBe('0')
    expect(formatCentiBps(1n)).toBe('0.01')
    expect(formatCentiBps(10n)).toBe('0.1')
    expect(formatCentiBps(100n)).toBe('1')
    expect(formatCentiBps(1_000n)).toBe('10')
    expect(formatCentiBps(1_250n)).toBe('12.5')
    expect(formatCentiBps(-1_250n)).toBe('-12.5')
    expect(formatCentiBps(-5n)).toBe('-0.05')
    expect(formatCentiBps(-62n)).toBe('-0.62')
    expect(formatCentiBps(123_456n)).toBe('1234.56')
    expect(formatCentiBps(-250_000n)).toBe('-2500')
  })

  it('is the shortest decimal of centiBps / 100, as JS prints that number (property)', () => {
    // Below 1e15 the quotient has at most 15 significant digits, which a double holds exactly
    // enough for Number#toString to print them back, without trailing zeros or exponent.
    fc.assert(
      fc.property(fc.bigInt({ min: -(10n ** 15n) + 1n, max: 10n ** 15n - 1n }), (centiBps) => {
        expect(formatCentiBps(centiBps)).toBe(String(Number(centiBps) / 100))
      }),
    )
  })
})

function abs(value: bigint): bigint {
  return value < 0n ? -value : value
}
