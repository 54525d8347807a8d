import { describe, expect, it } from 'vitest'
// @ts-expect-error: the dashboard's browser modules are plain JavaScript, without declarations
import { exitsText } from '../../../src/dashboard/static/strategies.js'

// The dashboard's strategies page: a protect strategy's progress cell says each exit it tripped
// and where the sale stands, from the `exits` of GET /v1/strategies.

const tripped = { chainId: 31337, ticker: 'AAPL', price: '183.5', currency: 'USD', quantity: '5' }

describe('exitsText', () => {
  it('says each tripped exit: selling, sold, or ended without a trade and when it is asked for again', () => {
    const retryAt = '2026-03-02T02:00:12.000Z'
    const text: string = exitsText([
      {
        ...tripped,
        trigger: 'stop-loss',
        attempt: 1,
        execution: { id: 12, state: 'rejected' },
        state: 'unsold',
        retryAt,
      },
      { ...tripped, trigger: 'trailing-stop', attempt: 2, execution: null, state: 'asked', retryAt: null },
      {
        ...tripped,
        trigger: 'take-profit',
        attempt: 1,
        execution: { id: 19, state: 'confirmed' },
        state: 'sold',
        retryAt: null,
      },
    ])
    expect(text.split(' · ')).toEqual([
      // The time as the browser's locale shows it (timeText): the platform's, not a formula of ours.
      `stop-loss AAPL at 183.5 USD: attempt 1 unsold (execution 12 rejected), attempt 2 at ${new Date(retryAt).toLocaleString()}`,
      'trailing-stop AAPL at 183.5 USD: selling 5, attempt 2 (not submitted yet)',
      'take-profit AAPL at 183.5 USD: sold 5 at attempt 1 (execution 19 confirmed)',
    ])
  })

  it('is empty for other kinds and while nothing tripped', () => {
    expect(exitsText(undefined)).toBe('')
    expect(exitsText([])).toBe('')
  })
})
