import { parsePrice } from '@stockroute/client/domain/unitStrings.js'
import { describe, expect, it } from 'vitest'
import {
  approvalTooLargeMessage,
  limitPriceMessage,
  priceDeviationMessage,
} from '../../src/engine/guardMessages.js'

// The guard's messages name amounts in the asset's and the token's own units, with the symbol;
// the base units stay in the verdict's details.

const usdc = { symbol: 'USDC', decimals: 6 }
const usdt = { symbol: 'USDT', decimals: 18 }

describe('guard messages', () => {
  it('limit price: the effective price and the limit in the asset, the limit as given in the market currency', () => {
    expect(
      limitPriceMessage({
        isBuy: true,
        effectivePrice: 228_087_860n,
        limit: 1_000_000n,
        limitPrice: parsePrice('1'),
        market: 'usex',
        asset: usdc,
      }),
    ).toBe('the quote pays 228.08786 USDC per share (fee included), above the limit of 1 USDC (1 USD)')
    expect(
      limitPriceMessage({
        isBuy: false,
        effectivePrice: 53_509_456_000_000_000_000n,
        limit: 64_250_000_000_000_000_000n,
        limitPrice: parsePrice('500'),
        market: 'hkex',
        asset: usdt,
      }),
    ).toBe('the quote fetches 53.509456 USDT per share (net of fee), below the limit of 64.25 USDT (500 HKD)')
  })

  it('price deviation: both prices in the asset, the market price also in its currency', () => {
    const message = priceDeviationMessage({
      effectivePrice: 64_234_567_890_123_456_789n,
      marketPrice: 53_790_100_000_000_000_000n,
      marketPriceInCurrency: parsePrice('418.6'),
      market: 'hkex',
      deviationBps: 1942n,
      maxBps: 300,
      asset: usdt,
    })
    expect(message).toBe(
      "the quote's effective price 64.234568 USDT per share is 1942 bps from the market price 53.7901 USDT (418.6 HKD), more than the 300 bps allowed",
    )
    expect(message).not.toMatch(/base units/)
  })

  it('approval: in the asset on a buy, in shares on a sell', () => {
    expect(
      approvalTooLargeMessage({
        index: 0,
        amount: 2_000_000_000n,
        needed: 912_631_720n,
        unit: { kind: 'asset', asset: usdc },
      }),
    ).toBe('approval 0 asks for 2000 USDC, more than the 912.63172 USDC the quote needs')
    expect(
      approvalTooLargeMessage({
        index: 1,
        amount: 10n ** 18n,
        needed: 5n * 10n ** 17n,
        unit: { kind: 'stock', token: { tokenKind: 'share', ticker: 'AAPLs' } },
      }),
    ).toBe('approval 1 asks for 1 AAPLs, more than the 0.5 AAPLs the quote needs')
  })
})
