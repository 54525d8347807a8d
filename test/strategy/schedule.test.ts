import { describe, expect, it } from 'vitest'
import type { SwapIntent } from '../../src/engine/index.js'
import { createScheduleStrategy, StrategyConfigError } from '../../src/strategy/index.js'
import { snapshot } from './snapshot.js'

// A schedule trades a fixed amount at each fire time of a node-cron expression, once per fire
// time (the fire time is in the intent id), and after a downtime only the latest missed ones.

const dca = {
  id: 'dca-aapl',
  chainId: 31337,
  ticker: 'AAPL',
  exchange: 0,
  side: 'buy',
  amountIn: '250',
} as const

const t0 = Date.parse('2026-01-05T14:00:00Z')
const ids = (intents: readonly SwapIntent[]) => intents.map((intent) => intent.intentId)

describe('createScheduleStrategy', () => {
  it('trades every fire time of a 5-second expression over a 12-second window', () => {
    const strategy = createScheduleStrategy({ ...dca, cron: '*/5 * * * * *', maxCatchUp: 10 })
    // (14:00:00, 14:00:12]: 05 and 10.
    expect(ids(strategy.evaluate(snapshot({ sinceMs: t0, nowMs: t0 + 12_000 })))).toEqual([
      'schedule:dca-aapl:2026-01-05T14:00:05.000Z',
      'schedule:dca-aapl:2026-01-05T14:00:10.000Z',
    ])
    // (13:59:59.5, 14:00:11.5]: 00, 05 and 10.
    const intents = strategy.evaluate(snapshot({ sinceMs: t0 - 500, nowMs: t0 + 11_500 }))
    expect(ids(intents)).toEqual([
      'schedule:dca-aapl:2026-01-05T14:00:00.000Z',
      'schedule:dca-aapl:2026-01-05T14:00:05.000Z',
      'schedule:dca-aapl:2026-01-05T14:00:10.000Z',
    ])
    expect(intents[0]).toEqual({
      intentId: 'schedule:dca-aapl:2026-01-05T14:00:00.000Z',
      chainId: 31337,
      ticker: 'AAPL',
      exchange: 0,
      side: 'buy',
      amountIn: '250',
    })
  })

  it('includes the window end and excludes its start', () => {
    const strategy = createScheduleStrategy({ ...dca, cron: '*/5 * * * * *', maxCatchUp: 10 })
    expect(strategy.dueFireTimes(t0, t0 + 5_000)).toEqual([t0 + 5_000])
    expect(strategy.dueFireTimes(t0 + 5_000, t0 + 9_999)).toEqual([])
    expect(strategy.dueFireTimes(t0 + 5_000, t0 + 5_000)).toEqual([])
    expect(strategy.dueFireTimes(t0 + 6_000, t0)).toEqual([])
  })

  it('gives the same ids for the same window, and consecutive ticks trade each fire time once', () => {
    const strategy = createScheduleStrategy({ ...dca, cron: '*/5 * * * * *', maxCatchUp: 10 })
    const whole = ids(strategy.evaluate(snapshot({ sinceMs: t0, nowMs: t0 + 30_000 })))
    expect(ids(strategy.evaluate(snapshot({ sinceMs: t0, nowMs: t0 + 30_000 })))).toEqual(whole)
    const ticks = [0, 1_000, 7_300, 7_301, 15_000, 21_999, 30_000].map((offset) => t0 + offset)
    const byTick = ticks
      .slice(1)
      .flatMap((nowMs, index) => ids(strategy.evaluate(snapshot({ sinceMs: ticks[index] ?? t0, nowMs }))))
    expect(byTick).toEqual(whole)
    expect(whole).toHaveLength(6)
  })

  it('after a long downtime trades only the latest missed fire time, or up to maxCatchUp', () => {
    const daily = { ...dca, cron: '0 14 * * *' }
    const sinceMs = t0 - 3 * 86_400_000 - 1 // just before 2026-01-02T14:00Z
    const nowMs = t0 + 3_600_000
    expect(ids(createScheduleStrategy(daily).evaluate(snapshot({ sinceMs, nowMs })))).toEqual([
      'schedule:dca-aapl:2026-01-05T14:00:00.000Z',
    ])
    expect(
      ids(createScheduleStrategy({ ...daily, maxCatchUp: 2 }).evaluate(snapshot({ sinceMs, nowMs }))),
    ).toEqual(['schedule:dca-aapl:2026-01-04T14:00:00.000Z', 'schedule:dca-aapl:2026-01-05T14:00:00.000Z'])
    expect(createScheduleStrategy({ ...daily, maxCatchUp: 10 }).dueFireTimes(sinceMs, nowMs)).toEqual([
      t0 - 3 * 86_400_000,
      t0 - 2 * 86_400_000,
      t0 - 86_400_000,
      t0,
    ])
  })

  it('looks back 60 seconds when the input has no sinceMs', () => {
    const strategy = createScheduleStrategy({ ...dca, cron: '0 14 * * *' })
    expect(ids(strategy.evaluate(snapshot({ nowMs: t0 + 59_000 })))).toEqual([
      'schedule:dca-aapl:2026-01-05T14:00:00.000Z',
    ])
    expect(strategy.evaluate(snapshot({ nowMs: t0 + 60_000 }))).toEqual([])
  })

  it('reads the expression in UTC by default, or in the configured time zone', () => {
    const weekdays = { ...dca, cron: '0 9 * * 1-5' }
    const monday = Date.parse('2026-01-05T00:00:00Z')
    const day = 86_400_000
    expect(createScheduleStrategy(weekdays).dueFireTimes(monday - 1, monday + day)).toEqual([
      Date.parse('2026-01-05T09:00:00Z'),
    ])
    const newYork = createScheduleStrategy({ ...weekdays, timezone: 'America/New_York', maxCatchUp: 10 })
    expect(newYork.timezone).toBe('America/New_York')
    // Friday 9:00 EST and Monday 9:00 EST; nothing at the weekend.
    expect(
      newYork.dueFireTimes(Date.parse('2026-01-09T00:00:00Z'), Date.parse('2026-01-13T00:00:00Z')),
    ).toEqual([Date.parse('2026-01-09T14:00:00Z'), Date.parse('2026-01-12T14:00:00Z')])
  })

  it('carries amountType and needs no prices; a sale of shares fires only when the position holds them', () => {
    const strategy = createScheduleStrategy({
      ...dca,
      ticker: '0700',
      exchange: 1,
      side: 'sell',
      amountIn: '100',
      amountType: 'stocktoken',
      cron: '*/5 * * * * *',
    })
    // Traded, so priced: the guard compares the firm quote with it.
    expect(strategy.symbols()).toEqual([{ market: 'hkex', symbol: '0700' }])
    const held = (balance: bigint) => [
      {
        chainId: 31337,
        ticker: '0700',
        exchange: 1 as const,
        tokenKind: 'stock' as const,
        balance,
        lotSize: 100n,
      },
    ]
    // A sale the position cannot cover does not fire (a trim before the first buy).
    expect(strategy.evaluate(snapshot({ sinceMs: t0, nowMs: t0 + 5_000 }))).toEqual([])
    expect(strategy.evaluate(snapshot({ sinceMs: t0, nowMs: t0 + 5_000, positions: held(99n) }))).toEqual([])
    expect(strategy.evaluate(snapshot({ sinceMs: t0, nowMs: t0 + 5_000, positions: held(100n) }))).toEqual([
      {
        intentId: 'schedule:dca-aapl:2026-01-05T14:00:05.000Z',
        chainId: 31337,
        ticker: '0700',
        exchange: 1,
        side: 'sell',
        amountIn: '100',
        amountType: 'stocktoken',
      },
    ])
  })

  it('refuses an invalid cron expression at creation, saying how to write one', () => {
    for (const cron of ['61 * * * *', 'every day', '* * *', '']) {
      let caught: unknown
      try {
        createScheduleStrategy({ ...dca, cron })
      } catch (error) {
        caught = error
      }
      expect(caught).toBeInstanceOf(StrategyConfigError)
      const error = caught as StrategyConfigError
      expect(error.issues.map((issue) => issue.path)).toEqual(['cron'])
      expect(error.shortMessage).toContain(
        `cron: ${JSON.stringify(cron)} is not a valid node-cron expression`,
      )
      expect(error.shortMessage).toContain('use 5 fields (minute hour day-of-month month day-of-week)')
    }
  })

  it('refuses an unknown time zone and an out-of-range maxCatchUp', () => {
    let caught: unknown
    try {
      createScheduleStrategy({ ...dca, cron: '0 * * * *', timezone: 'Mars/Olympus', maxCatchUp: 0 })
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(StrategyConfigError)
    expect((caught as StrategyConfigError).issues.map((issue) => issue.path).sort()).toEqual([
      'maxCatchUp',
      'timezone',
    ])
  })
})
