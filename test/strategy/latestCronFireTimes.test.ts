import fc from 'fast-check'
import cron from 'node-cron'
import { describe, expect, it } from 'vitest'
import { latestCronFireTimes } from '../../src/strategy/latestCronFireTimes.js'

// The schedule's fire times are computed without the wall clock; node-cron's own matcher is the
// reference: every second it matches in a window is a fire time, and nothing else is.

const iso = (ms: number) => new Date(ms).toISOString()
const day = 86_400_000

/** Every whole second in (afterMs, untilMs] that node-cron matches, by brute force. */
function bruteForce(expression: string, timezone: string, afterMs: number, untilMs: number): number[] {
  const task = cron.createTask(expression, () => undefined, { timezone })
  try {
    const found: number[] = []
    for (let at = Math.floor(afterMs / 1000) * 1000 + 1000; at <= untilMs; at += 1000)
      if (task.match(new Date(at))) found.push(at)
    return found
  } finally {
    task.destroy()
  }
}

describe('latestCronFireTimes', () => {
  it('lists the fire times in (after, until], ascending', () => {
    const afterMs = Date.parse('2026-01-05T14:00:00Z')
    const times = latestCronFireTimes({
      expression: '*/5 * * * * *',
      timezone: 'UTC',
      afterMs,
      untilMs: afterMs + 12_000,
      count: 100,
    })
    expect(times.map(iso)).toEqual(['2026-01-05T14:00:05.000Z', '2026-01-05T14:00:10.000Z'])
  })

  it('keeps only the latest `count`', () => {
    const untilMs = Date.parse('2026-01-05T14:00:00Z')
    const times = latestCronFireTimes({
      expression: '*/5 * * * * *',
      timezone: 'UTC',
      afterMs: untilMs - 3_600_000,
      untilMs,
      count: 2,
    })
    expect(times.map(iso)).toEqual(['2026-01-05T13:59:55.000Z', '2026-01-05T14:00:00.000Z'])
  })

  it('finds the last fire of a sparse expression far back without stepping through every fire', () => {
    const untilMs = Date.parse('2026-01-05T14:00:00Z')
    const leapDay = latestCronFireTimes({
      expression: '0 0 9 29 2 *',
      timezone: 'UTC',
      afterMs: untilMs - 6 * 365 * day,
      untilMs,
      count: 1,
    })
    expect(leapDay.map(iso)).toEqual(['2024-02-29T09:00:00.000Z'])
    const everySecond = latestCronFireTimes({
      expression: '* * * * * *',
      timezone: 'UTC',
      afterMs: 0,
      untilMs,
      count: 1,
    })
    expect(everySecond).toEqual([untilMs])
  })

  it('understands node-cron day tokens (last day of month, nth weekday)', () => {
    const window = { timezone: 'UTC', afterMs: Date.parse('2025-12-31T23:59:59Z'), count: 12 }
    const lastDays = latestCronFireTimes({
      ...window,
      expression: '0 0 L * *',
      untilMs: Date.parse('2026-04-30T00:00:00Z'),
    })
    expect(lastDays.map(iso)).toEqual([
      '2026-01-31T00:00:00.000Z',
      '2026-02-28T00:00:00.000Z',
      '2026-03-31T00:00:00.000Z',
      '2026-04-30T00:00:00.000Z',
    ])
    const secondMondays = latestCronFireTimes({
      ...window,
      expression: '0 12 * * 1#2',
      untilMs: Date.parse('2026-03-31T00:00:00Z'),
    })
    expect(secondMondays.map(iso)).toEqual([
      '2026-01-12T12:00:00.000Z',
      '2026-02-09T12:00:00.000Z',
      '2026-03-09T12:00:00.000Z',
    ])
  })

  it('fires a wall-clock time a DST change repeats twice and one it skips not at all', () => {
    const fallBack = latestCronFireTimes({
      expression: '30 1 * * *',
      timezone: 'America/New_York',
      afterMs: Date.parse('2025-11-01T12:00:00Z'),
      untilMs: Date.parse('2025-11-03T12:00:00Z'),
      count: 10,
    })
    expect(fallBack.map(iso)).toEqual([
      '2025-11-02T05:30:00.000Z', // 01:30 EDT
      '2025-11-02T06:30:00.000Z', // 01:30 EST
      '2025-11-03T06:30:00.000Z',
    ])
    const springForward = latestCronFireTimes({
      expression: '30 2 * * *',
      timezone: 'America/New_York',
      afterMs: Date.parse('2026-03-07T00:00:00Z'),
      untilMs: Date.parse('2026-03-10T00:00:00Z'),
      count: 10,
    })
    expect(springForward.map(iso)).toEqual(['2026-03-07T07:30:00.000Z', '2026-03-09T06:30:00.000Z'])
  })

  it('agrees with node-cron matching second by second (property)', () => {
    const expressions = [
      '*/5 * * * * *',
      '*/7 * * * * *',
      '15,45 * * * * *',
      '* * * * *',
      '*/3 * * * *',
      '0 */10 * * * *',
      '0 0 * * * *',
      '20-25 14 * * *',
    ]
    const timezones = ['UTC', 'America/New_York', 'Asia/Kolkata', 'Asia/Kathmandu', 'Europe/London']
    fc.assert(
      fc.property(
        fc.constantFrom(...expressions),
        fc.constantFrom(...timezones),
        // Around the 2025 autumn DST changes, so some windows straddle one.
        fc.integer({ min: Date.parse('2025-10-25T00:00:00Z'), max: Date.parse('2025-11-03T00:00:00Z') }),
        fc.integer({ min: 0, max: 1_500_000 }),
        fc.integer({ min: 1, max: 50 }),
        (expression, timezone, afterMs, length, count) => {
          const untilMs = afterMs + length
          const all = bruteForce(expression, timezone, afterMs, untilMs)
          const latest = latestCronFireTimes({ expression, timezone, afterMs, untilMs, count })
          expect(latest).toEqual(all.slice(Math.max(0, all.length - count)))
        },
      ),
      { numRuns: 60 },
    )
  })
})
