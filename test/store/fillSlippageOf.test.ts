import { describe, expect, it } from 'vitest'
import {
  type ExecutionPricingRow,
  type FillPricingRow,
  fillSlippageOf,
} from '../../src/store/fillSlippageOf.js'

// The slippage a fill is recorded with, from its row and its execution's, each figure worked out by
// hand (the arithmetic beside it): against the stored quote's amount out, both ways, on buys and
// sells, and against the market price the execution read.

const quoteId = `0x${'ab'.repeat(32)}`

/** An AAPL fill on a 6-decimal asset: a buy unless told. */
function fillRow(parts: Partial<FillPricingRow>): FillPricingRow {
  return {
    quote_id: quoteId,
    exchange: 0,
    token_kind: 'stock',
    asset_decimals: 6,
    is_buy: 1,
    amount_in: '0',
    amount_out: '0',
    ...parts,
  }
}

/** An execution holding the quote `quoteId` that promised `amountOut`, AAPL at 227.48 USD. */
function executionRow(amountOut: string, parts: Partial<ExecutionPricingRow> = {}): ExecutionPricingRow {
  return {
    quote_json: JSON.stringify({ quoteId, amountOut }),
    market_price: '22748000000',
    market_fx_rate: '100000000',
    ...parts,
  }
}

describe('fillSlippageOf', () => {
  it('a buy that got fewer shares than quoted is worse (positive), more is better (negative)', () => {
    // 4 shares for 910.82992 USDC: 4 × 227.48 = 909.92 plus the 10 bps fee, +10 bps vs market.
    const bought = fillRow({ amount_in: '910829920', amount_out: '4' })
    // Quoted 5, filled 4: 1/5 = 20% = 2,000 bps = 200,000 centi-bps.
    expect(fillSlippageOf(bought, executionRow('5'))).toEqual({ quote: 200_000, market: 1_000 })
    // Quoted 4, filled 4: nothing.
    expect(fillSlippageOf(bought, executionRow('4'))).toEqual({ quote: 0, market: 1_000 })
    // Quoted 3, filled 4: −1/3 = −3,333.33 bps = −333,333.3 → −333,333.
    expect(fillSlippageOf(bought, executionRow('3'))).toEqual({ quote: -333_333, market: 1_000 })
  })

  it('a sell that received less asset than quoted is worse (positive), more is better (negative)', () => {
    // 4 shares sold for 909.01008 USDC net: 909.92 less the 10 bps fee, 10 bps below the market.
    const sold = fillRow({ is_buy: 0, amount_in: '4', amount_out: '909010080' })
    // Quoted 909.92, received 909.01008: 0.90992/909.92 = 0.1% = 10 bps = 1,000.
    expect(fillSlippageOf(sold, executionRow('909920000'))).toEqual({ quote: 1_000, market: 1_000 })
    // Quoted 909, received 909.01008: −0.01008/909 = −0.110891 bps = −11.0891 → −11.
    expect(fillSlippageOf(sold, executionRow('909000000'))).toEqual({ quote: -11, market: 1_000 })
  })

  it('an execution made before its FX rate was stored converts at the default rate of the market', () => {
    // 200 0700 for 10,768.77802 (18-decimal asset): 10,768.77802 / 200 / 0.1285 = 419.0186 HKD
    // against 418.6: +10 bps.
    const hkBuy = fillRow({
      exchange: 1,
      asset_decimals: 18,
      amount_in: '10768778020000000000000',
      amount_out: '200',
    })
    const before = executionRow('200', { market_price: '41860000000', market_fx_rate: null })
    expect(fillSlippageOf(hkBuy, before)).toEqual({ quote: 0, market: 1_000 })
  })

  it('has no slippage where there is no reference', () => {
    const bought = fillRow({ amount_in: '910829920', amount_out: '4' })
    expect(fillSlippageOf(bought, undefined)).toEqual({ quote: null, market: null })
    // The execution holds another quote (it was re-quoted): no quote to compare with.
    const requoted = executionRow('5', {
      quote_json: JSON.stringify({ quoteId: `0x${'cd'.repeat(32)}`, amountOut: '5' }),
    })
    expect(fillSlippageOf(bought, requoted)).toEqual({ quote: null, market: 1_000 })
    // The quote id in another case is the same quote.
    const upper = executionRow('5', {
      quote_json: JSON.stringify({ quoteId: quoteId.toUpperCase(), amountOut: '5' }),
    })
    expect(fillSlippageOf(bought, upper).quote).toBe(200_000)
    // No market price recorded.
    expect(fillSlippageOf(bought, executionRow('4', { market_price: null }))).toEqual({
      quote: 0,
      market: null,
    })
  })
})
