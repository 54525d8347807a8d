import { defaultFxRates } from '@stockroute/client/domain/quotePrice.js'
import type { Hex } from 'viem'
import { describe, expect, it } from 'vitest'
import { settledLine, transactionEventLine } from '../../src/daemon/activity.js'
import type { ExecutionRecord, FillRecord } from '../../src/store/index.js'

// The daemon's line for a confirmed execution: quantity then ticker, "for" on both sides, amounts
// without 18-decimal noise, HK and KR prices also in their currency.

const hash = `0x1984${'0'.repeat(56)}bdd5` as Hex
const at = Date.UTC(2026, 10, 25, 14, 1, 4)

function execution(overrides: Partial<ExecutionRecord>): ExecutionRecord {
  return {
    id: 1,
    intentId: 'i',
    chainId: 31337,
    ticker: 'AAPL',
    exchange: 0,
    side: 'sell',
    amountIn: '1',
    amountType: 'stocktoken',
    limitPrice: null,
    strategy: null,
    quoteId: null,
    quote: null,
    notional: null,
    marketPrice: null,
    state: 'confirmed',
    version: 1,
    reason: 'settled',
    createdAtMs: at - 62,
    updatedAtMs: at,
    ...overrides,
  }
}

function fill(overrides: Partial<FillRecord>): FillRecord {
  return {
    txHash: hash,
    isBuy: false,
    tokenKind: 'stock',
    assetDecimals: 6,
    exchange: 0,
    stockAmount: 1n,
    assetAmount: 228_580_000n,
    ...overrides,
  } as FillRecord
}

describe('settledLine', () => {
  it('a sell reads "sell 1 AAPL for 228.58 USDC"', () => {
    expect(settledLine(execution({}), fill({}), 'USDC', defaultFxRates)).toBe(
      '14:01:04 ✓ sell 1 AAPL for 228.58 USDC @ 228.58 USDC  chain 31337  62 ms  tx 0x1984…bdd5',
    )
  })

  it('a ShareToken buy on an 18-decimal asset: no 18-decimal noise', () => {
    const line = settledLine(
      execution({ side: 'buy', ticker: 'AAPLs', chainId: 31338 }),
      fill({
        isBuy: true,
        tokenKind: 'share',
        assetDecimals: 18,
        stockAmount: (5n * 10n ** 17n) as never,
        assetAmount: 114_516_300_000_000_000_123n as never,
      }),
      'USDT',
      defaultFxRates,
    )
    expect(line).toBe(
      '14:01:04 ✓ buy  0.5 AAPLs for 114.5163 USDT @ 229.0326 USDT  chain 31338  62 ms  tx 0x1984…bdd5',
    )
  })

  it('an HK buy shows the price in HKD too', () => {
    const line = settledLine(
      execution({ side: 'buy', ticker: '0700', exchange: 1 }),
      fill({ isBuy: true, exchange: 1, stockAmount: 100n as never, assetAmount: 5_379_010_000n as never }),
      'USDC',
      defaultFxRates,
    )
    expect(line).toContain('buy  100 0700 for 5379.01 USDC @ 53.7901 USDC (418.6 HKD)  chain')
  })
})

describe('values from a request or the service on the operator lines', () => {
  it('are shown as data: a line break, an ANSI sequence never leave their line', () => {
    const line = settledLine(
      execution({ ticker: 'AAPL\r\nX-Injected: 1' }),
      fill({}),
      'USDC\u001b[31m',
      defaultFxRates,
    )
    expect(line).toBe(
      '14:01:04 ✓ sell 1 AAPL\\r\\nX-Injected: 1 for 228.58 USDC\\u001b[31m @ 228.58 USDC\\u001b[31m  chain 31337  62 ms  tx 0x1984…bdd5',
    )
    expect(transactionEventLine(31337, { kind: 'error', message: 'rpc said\nX-Forged: 2\u202e' })).toBe(
      'chain 31337: rpc said\\nX-Forged: 2\\u202e',
    )
    expect(
      transactionEventLine(31337, {
        kind: 'rebroadcast',
        nonce: 3,
        hash,
        reason: 'dropped\r\nX: 1',
      } as never),
    ).toBe('chain 31337: nonce 3 sent again: dropped\\r\\nX: 1')
  })
})
