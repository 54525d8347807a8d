import { describe, expect, it } from 'vitest'
import { strategyTable } from '../../src/cli/commands/strategyTable.js'
import type { StrategyView } from '../../src/daemon/controlApi/contract.js'

// `stockroute strategies` as a table: a TWAP's progress is said under it in words, from the view
// the daemon serves (its figures are checked against the ledger in test/daemon/twapRunner.test.ts).

const nowMs = Date.parse('2026-03-02T02:00:00.000Z')

const twap: StrategyView = {
  id: 'twap-0700',
  kind: 'twap',
  enabled: true,
  switched: null,
  lastRun: { at: '2026-03-02T01:59:58.000Z', submitted: 1, refused: 0, error: null },
  trades: { submitted: 4, confirmed: 4, lastAt: '2026-03-02T01:59:00.000Z' },
  nextRunAt: null,
  progress: {
    ticker: '0700',
    side: 'buy',
    ordered: '1050',
    filled: '400',
    remaining: '650',
    slices: { planned: 10, due: 4, sent: 4, confirmed: 4 },
    window: { start: '2026-03-02T01:30:00.000Z', end: '2026-03-02T02:45:00.000Z' },
    nextSliceAt: '2026-03-02T02:03:00.000Z',
    remainder: {
      ticker: '0700s',
      shares: '50',
      status: 'refused',
      reason:
        'the remainder of 50 shares (not a whole lot of 100) is not traded: chain 31337 lists no ShareToken 0700s',
    },
    currency: 'HKD',
    averagePrice: '320.4',
    arrivalPrice: '320.27',
    vsArrivalBps: '4.1',
    notes: [
      'the remainder of 50 shares (not a whole lot of 100) is not traded: chain 31337 lists no ShareToken 0700s',
    ],
  },
}

/** The lines after the table's header and its one row per strategy. */
const linesUnderTable = (strategies: StrategyView[]) =>
  strategyTable(strategies, nowMs)
    .split('\n')
    .slice(1 + strategies.length)

describe('strategyTable', () => {
  it("says a TWAP's progress under the table: done and left, its slices and the next, its price against arrival, why a part is not traded", () => {
    const text = strategyTable([twap], nowMs)
    expect(text.split('\n')[1]).toMatch(/^twap-0700 +twap +yes +2s ago +1m ago +4 +4 +- +-$/)
    expect(linesUnderTable([twap])).toEqual([
      'twap-0700: bought 400 of 1050 0700 shares, 650 left; slices: 4 of 10 due, 4 sent, 4 confirmed, the next in 3m; average 320.4 HKD, 4.1 bps worse than arrival (320.27)',
      'twap-0700: the remainder of 50 shares (not a whole lot of 100) is not traded: chain 31337 lists no ShareToken 0700s',
    ])
  })

  it('a finished sell that beat its arrival price; one not started yet has no price', () => {
    const progress = twap.progress
    if (!progress) throw new Error('the fixture has a progress')
    const sold: StrategyView = {
      ...twap,
      id: 'twap-aapl',
      progress: {
        ...progress,
        ticker: 'AAPL',
        side: 'sell',
        ordered: '3.5',
        filled: '3.5',
        remaining: '0',
        slices: { planned: 3, due: 3, sent: 4, confirmed: 4 },
        nextSliceAt: null,
        remainder: { ticker: 'AAPLs', shares: '0.5', status: 'sent', reason: null },
        currency: 'USD',
        averagePrice: '187.31',
        arrivalPrice: '187.02',
        vsArrivalBps: '-15.5',
        notes: [],
      },
    }
    const waiting: StrategyView = {
      ...twap,
      id: 'twap-later',
      progress: {
        ...progress,
        filled: '0',
        remaining: '1050',
        slices: { planned: 10, due: 0, sent: 0, confirmed: 0 },
        nextSliceAt: '2026-03-02T03:00:00.000Z',
        averagePrice: null,
        arrivalPrice: null,
        vsArrivalBps: null,
        notes: [],
      },
    }
    expect(linesUnderTable([sold, waiting])).toEqual([
      'twap-aapl: sold 3.5 of 3.5 AAPL shares, 0 left; slices: 3 of 3 due, 4 sent, 4 confirmed, none left; average 187.31 USD, 15.5 bps better than arrival (187.02)',
      'twap-later: bought 0 of 1050 0700 shares, 1050 left; slices: 0 of 10 due, 0 sent, 0 confirmed, the next in 1h',
    ])
  })

  it('says each protective exit that tripped: its sale, its attempt, the next one after a sale that ended without a trade', () => {
    const tripped = {
      chainId: 31337,
      ticker: 'AAPL',
      price: '183.5',
      currency: 'USD',
      quantity: '5',
      askedAt: '2026-03-02T01:59:40.000Z',
    }
    const guard: StrategyView = {
      ...twap,
      id: 'guard-aapl',
      kind: 'protect',
      exits: [
        {
          ...tripped,
          trigger: 'stop-loss',
          attempt: 1,
          intentId: 'protect:guard-aapl:stop-loss:42',
          execution: { id: 12, state: 'rejected' },
          state: 'unsold',
          retryAt: '2026-03-02T02:00:12.000Z',
        },
        {
          ...tripped,
          ticker: 'AAPLs',
          quantity: '0.5',
          trigger: 'trailing-stop',
          attempt: 2,
          intentId: 'protect:guard-aapl:trailing-stop:43:2',
          execution: { id: 14, state: 'submitted' },
          state: 'selling',
          retryAt: null,
        },
        {
          ...tripped,
          trigger: 'take-profit',
          attempt: 3,
          intentId: 'protect:guard-aapl:take-profit:44:3',
          execution: { id: 19, state: 'confirmed' },
          state: 'sold',
          retryAt: null,
        },
        {
          ...tripped,
          trigger: 'stop-loss',
          attempt: 2,
          intentId: 'protect:guard-aapl:stop-loss:45:2',
          execution: null,
          state: 'asked',
          retryAt: null,
        },
      ],
    }
    delete guard.progress
    expect(linesUnderTable([guard])).toEqual([
      'guard-aapl: stop-loss tripped on AAPL (chain 31337) at 183.5 USD: attempt 1 ended without a trade (execution 12 rejected); attempt 2 in 12s',
      'guard-aapl: trailing-stop tripped on AAPLs (chain 31337) at 183.5 USD: selling 0.5 shares, attempt 2 (execution 14 submitted)',
      'guard-aapl: take-profit tripped on AAPL (chain 31337) at 183.5 USD: sold 5 shares at attempt 3 (execution 19 confirmed)',
      'guard-aapl: stop-loss tripped on AAPL (chain 31337) at 183.5 USD: selling 5 shares, attempt 2 (not submitted yet)',
    ])
  })

  it('other kinds have no progress line; a strategy whose last run threw is said after the progress', () => {
    const limit: StrategyView = {
      ...twap,
      id: 'buyer-aapl',
      kind: 'limit',
      lastRun: {
        at: '2026-03-02T01:59:58.000Z',
        submitted: 0,
        refused: 0,
        error: 'no market price for AAPL',
      },
    }
    delete limit.progress
    expect(linesUnderTable([limit, twap])).toEqual([
      expect.stringMatching(/^twap-0700: bought 400 of 1050/),
      expect.stringMatching(/^twap-0700: the remainder of 50 shares/),
      'buyer-aapl: its last run threw: no market price for AAPL',
    ])
  })
})
