import { describe, expect, it } from 'vitest'
import { appendDailySummary, utcDayBefore } from '../../../src/daemon/notifications/index.js'
import { type NewFill, openLedger } from '../../../src/store/index.js'
import { fillOf, ledgerFolder, tokens } from '../../store/ledgerFiles.js'

const folder = ledgerFolder()
const day = Date.parse('2025-06-01T00:00:00Z')

describe('appendDailySummary', () => {
  it("sums the day's executions by state, fills and amounts per chain and asset, once per day", () => {
    let clock = day - 1_000
    const ledger = openLedger({ path: folder.path(), now: () => clock })
    try {
      const create = (intentId: string) =>
        ledger.executions.createExecution({
          intentId,
          chainId: 31337,
          ticker: 'AAPL',
          exchange: 0,
          side: 'buy',
          amountIn: '100',
          amountType: 'stablecoin',
        }).id
      create('the day before')
      ledger.fills.recordFill(fillOf({ txLabel: 'the day before' }))
      clock = day + 1_000
      const rejected = create('rejected')
      ledger.executions.transition(rejected, 'intent', 'rejected', 'kill switch')
      create('waiting')
      ledger.fills.recordFill(fillOf({ txLabel: 'buy' }))
      ledger.fills.recordFill(
        fillOf({
          txLabel: 'sell',
          isBuy: false,
          amountIn: 2n,
          amountOut: 400_000_000n,
          feeAmount: 500_000n as NewFill['feeAmount'],
        }),
      )
      ledger.fills.recordFill(
        fillOf({
          txLabel: 'other chain',
          chainId: 31338,
          assetToken: tokens.usdc,
          assetDecimals: 18,
          amountIn: 10n ** 18n,
          feeAmount: 0n as NewFill['feeAmount'],
        }),
      )
      clock = day + 86_400_000 + 300_000

      const window = utcDayBefore(clock)
      expect(window).toEqual({ dayStartMs: day, dayEndMs: day + 86_400_000 })
      const event = appendDailySummary(ledger, window)
      expect(event.kind).toBe('daily_summary')
      expect(event.data).toEqual({
        day: '2025-06-01',
        fromMs: day,
        toMs: day + 86_400_000,
        executions: { total: 2, byState: { intent: 1, rejected: 1 } },
        fills: { count: 3, reversed: 0 },
        notional: [
          {
            chainId: 31337,
            assetToken: tokens.usdc,
            assetDecimals: 6,
            bought: '1000000000',
            sold: '400000000',
            fees: '1500000',
            fills: 2,
          },
          {
            chainId: 31338,
            assetToken: tokens.usdc,
            assetDecimals: 18,
            bought: '1000000000000000000',
            sold: '0',
            fees: '0',
            fills: 1,
          },
        ],
      })
      const again = appendDailySummary(ledger, window)
      expect(again).toEqual(event)
      expect(ledger.events.listAfter(0, { kinds: ['daily_summary'] })).toHaveLength(1)
      expect(() => appendDailySummary(ledger, { dayStartMs: day, dayEndMs: day })).toThrow(
        /dayStartMs < dayEndMs/,
      )
    } finally {
      ledger.close()
    }
  })
})
