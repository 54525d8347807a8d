import { describe, expect, it } from 'vitest'
import { describeExecution } from '../../src/cli/commands/describeExecution.js'
import type { ExecutionDetailView } from '../../src/daemon/controlApi/contract.js'

// `stockroute executions show`: fills in their own units, without 18-decimal noise; a dry run is
// shown as one, not as a rejection with failed transactions.

const base = {
  executionId: 9,
  intentId: 'i',
  chainId: 31338,
  ticker: 'AAPLs',
  side: 'sell',
  amountIn: '0.5',
  amountType: 'stocktoken',
  state: 'confirmed',
  reason: 'settled',
  strategy: null,
  quoteId: null,
  createdAt: '2026-11-25T14:00:00.000Z',
  events: [],
  transactions: [],
  fills: [],
}

describe('describeExecution', () => {
  it('shows shares, asset, fee and the price net of fee on a sell, trimmed to 6 decimals', () => {
    const text = describeExecution({
      ...base,
      fills: [
        {
          txHash: `0x${'1'.repeat(64)}`,
          logIndex: 3,
          amountIn: '500000000000000000',
          amountOut: '113376510000000000001',
          feeAmount: '113490000000000000',
          tokenKind: 'share',
          assetDecimals: 18,
          stockAmount: '500000000000000000',
          assetAmount: '113376510000000000001',
          reversedAt: null,
          reversalReason: null,
        },
      ],
    } as unknown as ExecutionDetailView)
    expect(text).toMatch(/SHARES \(AAPLs\)\s+ASSET\s+FEE\s+PRICE \(NET OF FEE\)/)
    expect(text).toMatch(/\s0\.5\s+113\.37651\s+0\.11349\s+226\.75302\s*$/m)
    expect(text).not.toMatch(/500000000000000000|113376510000000000001/)
  })

  it('a dry run reads as one: not rejected, its transactions not sent', () => {
    const text = describeExecution({
      ...base,
      state: 'rejected',
      reason:
        'dry run: not broadcast; would send execute 0x… (nonce 1, gas limit 162406); simulation: simulated, gas 135339',
      transactions: [{ kind: 'execute', nonce: 1, status: 'failed', hash: `0x${'2'.repeat(64)}` }],
    } as unknown as ExecutionDetailView)
    expect(text).toMatch(/^execution 9 dry run, not broadcast: sell AAPLs on chain 31338/)
    expect(text).toMatch(/not sent \(dry run\)/)
    expect(text).not.toMatch(/failed/)
  })
})
