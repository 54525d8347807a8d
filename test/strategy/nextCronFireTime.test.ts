import { describe, expect, it } from 'vitest'
import { nextCronFireTime } from '../../src/strategy/nextCronFireTime.js'

describe('nextCronFireTime', () => {
  it("finds the first fire after a time, frequent or rare, in the expression's time zone", () => {
    const at = Date.parse('2026-01-03T00:00:00Z') // a Saturday
    expect(nextCronFireTime({ expression: '*/5 * * * * *', timezone: 'UTC', afterMs: at })).toBe(at + 5_000)
    expect(nextCronFireTime({ expression: '0 14 * * 1-5', timezone: 'UTC', afterMs: at })).toBe(
      Date.parse('2026-01-05T14:00:00Z'),
    )
    expect(nextCronFireTime({ expression: '0 9 * * *', timezone: 'Asia/Hong_Kong', afterMs: at })).toBe(
      Date.parse('2026-01-03T01:00:00Z'),
    )
    expect(nextCronFireTime({ expression: '0 0 1 1 *', timezone: 'UTC', afterMs: at })).toBe(
      Date.parse('2027-01-01T00:00:00Z'),
    )
    // Exclusive of the instant itself.
    expect(nextCronFireTime({ expression: '0 0 * * *', timezone: 'UTC', afterMs: at })).toBe(at + 86_400_000)
  })
})
