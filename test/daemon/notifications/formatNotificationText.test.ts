import { describe, expect, it } from 'vitest'
import { formatBaseUnits, formatNotificationText } from '../../../src/daemon/notifications/index.js'
import type { LedgerEvent } from '../../../src/store/index.js'

const event = (
  kind: LedgerEvent['kind'],
  data: Record<string, unknown>,
  chainId: number | null = 31337,
): LedgerEvent => ({
  id: 7,
  kind,
  chainId,
  executionId: null,
  data,
  atMs: 1_750_000_000_000,
})

describe('formatNotificationText', () => {
  it('shows a sell of ShareTokens (18 decimals) in an 18-decimal asset, in natural units', () => {
    const text = formatNotificationText(
      event('fill', {
        side: 'sell',
        ticker: 'TSLA',
        tokenKind: 'share',
        amountIn: '1500000000000000000',
        amountOut: '301250000000000000000',
        feeAmount: '250000000000000000',
        assetDecimals: 18,
        assetToken: '0x2000000000000000000000000000000000000002',
        txHash: `0x${'ab'.repeat(32)}`,
      }),
    )
    expect(text).toBe(
      'Filled: sell 1.5 TSLA on chain 31337 for 301.25 0x2000…0002 (fee 0.25), tx 0xabab…abab',
    )
  })

  it('says what a halt, a resume, a reversal, a discrepancy and a recovery are', () => {
    expect(formatNotificationText(event('halt', { reason: 'operator' }, null))).toBe(
      'Trading halted: operator',
    )
    expect(formatNotificationText(event('resume', { reason: 'fixed' }, null))).toBe('Trading resumed: fixed')
    expect(
      formatNotificationText(
        event('fill_reversed', { ticker: 'AAPL', txHash: '0x12', fillId: 3, reason: 'reorg' }),
      ),
    ).toBe('Fill reversed: AAPL on chain 31337, tx 0x12 (fill 3): reorg')
    expect(
      formatNotificationText(
        event('discrepancy', { chainId: 31337, ticker: 'AAPL', ledger: '10', chain: '9' }),
      ),
    ).toBe('Discrepancy on chain 31337: ticker AAPL, ledger 10, chain 9')
    expect(
      formatNotificationText(event('recovery', { message: 'execution 4 confirmed from its receipt' })),
    ).toBe('Recovery on chain 31337: execution 4 confirmed from its receipt')
  })

  it('writes a daily summary with its counts and each chain', () => {
    const text = formatNotificationText(
      event(
        'daily_summary',
        {
          day: '2025-06-01',
          executions: { total: 3, byState: { confirmed: 2, rejected: 1 } },
          fills: { count: 2, reversed: 0 },
          notional: [
            {
              chainId: 31337,
              assetToken: '0x2000000000000000000000000000000000000001',
              assetDecimals: 6,
              bought: '1500000',
              sold: '0',
              fees: '1000',
              fills: 2,
            },
          ],
        },
        null,
      ),
      () => 'USDC',
    )
    expect(text).toBe(
      'Daily summary 2025-06-01 (UTC): 3 executions (2 confirmed, 1 rejected), 2 fills\n' +
        'chain 31337: bought for 1.50 USDC, sold for 0.00 USDC, fees 0.001 (2 fills)',
    )
  })

  it('formatBaseUnits pads money to 2 decimals, keeps up to 6 and rounds the 18-decimal noise away', () => {
    expect(formatBaseUnits('300000000', 6)).toBe('300.00')
    expect(formatBaseUnits('123456', 6)).toBe('0.123456')
    // 39.978310249750249751: the 7th fraction digit is 2, so it rounds down to 39.978310 → 39.97831.
    expect(formatBaseUnits('39978310249750249751', 18)).toBe('39.97831')
    // 40018.288559999999999445: the 7th digit is 9, so .288559|99… rounds up to .28856.
    expect(formatBaseUnits('40018288559999999999445', 18)).toBe('40018.28856')
    expect(formatBaseUnits(5n, 0, 0)).toBe('5')
    expect(formatBaseUnits('not a number', 6)).toBe('not a number')
  })
})
