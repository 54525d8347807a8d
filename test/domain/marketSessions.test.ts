import { marketCalendars } from '@stockroute/client/domain/marketCalendar.js'
import {
  closedMarketPriceNote,
  isMarketOpen,
  marketSessionAt,
} from '@stockroute/client/domain/marketSessions.js'
import type { ExchangeCode } from '@stockroute/client/domain/markets.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'

// Market sessions against the shipped calendar, each instant fixed (no clock is read).

const at = Date.parse
const session = (exchange: ExchangeCode, iso: string) => marketSessionAt(exchange, at(iso))
const exchanges: readonly ExchangeCode[] = [0, 1, 3]

describe('marketSessionAt: Hong Kong', () => {
  it('is closed for the lunch break from 12:00 to 13:00 HKT, and says until when', () => {
    // Tuesday 10 March 2026, 12:30 HKT (UTC+8, no daylight saving).
    const lunch = session(1, '2026-03-10T04:30:00Z')
    expect(lunch).toMatchObject({
      open: false,
      state: 'lunch-break',
      reason: 'Hong Kong lunch break until 13:00 HKT',
      opensAtMs: at('2026-03-10T05:00:00Z'),
      closesAtMs: at('2026-03-10T08:00:00Z'),
      calendarKnown: true,
    })
    expect(session(1, '2026-03-10T03:59:59.999Z')).toMatchObject({
      open: true,
      reason: 'open: morning session until 12:00 HKT',
      opensAtMs: at('2026-03-10T01:30:00Z'),
      closesAtMs: at('2026-03-10T04:00:00Z'),
    })
    expect(isMarketOpen(1, at('2026-03-10T04:00:00Z'))).toBe(false)
    expect(isMarketOpen(1, at('2026-03-10T05:00:00Z'))).toBe(true)
    expect(closedMarketPriceNote(1, at('2026-03-10T04:30:00Z'))).toBe(
      'price from a closed market (HKEX closed: lunch break)',
    )
    expect(closedMarketPriceNote(1, at('2026-03-10T05:30:00Z'))).toBeUndefined()
  })

  it("trades only the morning on Lunar New Year's Eve, then closes for the three days of the new year", () => {
    // Monday 16 February 2026 is the eve; 17 to 19 February are holidays; Friday the 20th trades.
    expect(session(1, '2026-02-16T03:00:00Z')).toMatchObject({
      open: true,
      reason: "half day: closes 12:00 HKT (Lunar New Year's Eve)",
      closesAtMs: at('2026-02-16T04:00:00Z'),
    })
    expect(session(1, '2026-02-16T05:30:00Z')).toMatchObject({
      open: false,
      state: 'after-close',
      reason: "closed: half day, closed at 12:00 HKT (Lunar New Year's Eve)",
      opensAtMs: at('2026-02-20T01:30:00Z'),
    })
    expect(session(1, '2026-02-17T02:00:00Z')).toMatchObject({
      open: false,
      state: 'holiday',
      reason: 'Hong Kong holiday: Lunar New Year',
    })
    expect(closedMarketPriceNote(1, at('2026-02-18T02:00:00Z'))).toBe(
      'price from a closed market (HKEX closed: holiday: the second day of Lunar New Year)',
    )
  })
})

describe('marketSessionAt: United States', () => {
  it('is closed on Thanksgiving and names the holiday', () => {
    expect(session(0, '2026-11-26T15:00:00Z')).toMatchObject({
      open: false,
      state: 'holiday',
      reason: 'US holiday: Thanksgiving',
      opensAtMs: at('2026-11-27T14:30:00Z'),
      closesAtMs: at('2026-11-27T18:00:00Z'),
    })
  })

  it('closes at 13:00 ET on the day after Thanksgiving and on Christmas Eve', () => {
    expect(session(0, '2026-11-27T17:59:59Z')).toMatchObject({
      open: true,
      reason: 'half day: closes 13:00 ET (day after Thanksgiving)',
      closesAtMs: at('2026-11-27T18:00:00Z'),
    })
    expect(session(0, '2026-11-27T18:00:00Z')).toMatchObject({
      open: false,
      state: 'after-close',
      opensAtMs: at('2026-11-30T14:30:00Z'),
    })
    expect(session(0, '2026-12-24T18:30:00Z')).toMatchObject({ open: false, state: 'after-close' })
    expect(session(0, '2026-12-24T17:30:00Z').reason).toBe('half day: closes 13:00 ET (Christmas Eve)')
  })

  it('follows daylight saving: 09:30 ET is 14:30Z before 8 March 2026, 13:30Z until 1 November, then 14:30Z again', () => {
    // Friday 6 March (EST, UTC-5).
    expect(session(0, '2026-03-06T13:30:00Z')).toMatchObject({
      open: false,
      state: 'before-open',
      opensAtMs: at('2026-03-06T14:30:00Z'),
    })
    expect(session(0, '2026-03-06T20:59:00Z').closesAtMs).toBe(at('2026-03-06T21:00:00Z'))
    // Sunday 8 March: clocks go forward; the next open, Monday 9 March, is 13:30Z (EDT, UTC-4).
    expect(session(0, '2026-03-08T12:00:00Z')).toMatchObject({
      open: false,
      state: 'weekend',
      opensAtMs: at('2026-03-09T13:30:00Z'),
      closesAtMs: at('2026-03-09T20:00:00Z'),
    })
    expect(isMarketOpen(0, at('2026-03-09T13:29:59.999Z'))).toBe(false)
    expect(isMarketOpen(0, at('2026-03-09T13:30:00Z'))).toBe(true)
    // Friday 30 October, still EDT; Sunday 1 November clocks go back: Monday 2 November opens 14:30Z.
    expect(session(0, '2026-10-30T13:30:00Z').open).toBe(true)
    expect(session(0, '2026-10-31T15:00:00Z').opensAtMs).toBe(at('2026-11-02T14:30:00Z'))
    expect(isMarketOpen(0, at('2026-11-02T13:30:00Z'))).toBe(false)
    expect(isMarketOpen(0, at('2026-11-02T14:30:00Z'))).toBe(true)
    expect(session(0, '2026-11-02T20:59:59Z').closesAtMs).toBe(at('2026-11-02T21:00:00Z'))
  })

  it('is closed on weekends, the reason saying so', () => {
    expect(session(0, '2026-03-07T15:00:00Z')).toMatchObject({
      open: false,
      state: 'weekend',
      reason: 'closed: weekend',
      opensAtMs: at('2026-03-09T13:30:00Z'),
    })
    expect(session(1, '2026-03-07T03:00:00Z').reason).toBe('closed: weekend')
    expect(session(3, '2026-03-08T03:00:00Z').reason).toBe('closed: weekend')
  })
})

describe('marketSessionAt: South Korea', () => {
  it('closes at 15:30 KST', () => {
    expect(session(3, '2026-03-10T06:29:59.999Z')).toMatchObject({
      open: true,
      reason: 'open: regular session until 15:30 KST',
      opensAtMs: at('2026-03-10T00:00:00Z'),
      closesAtMs: at('2026-03-10T06:30:00Z'),
    })
    expect(session(3, '2026-03-10T06:30:00Z')).toMatchObject({
      open: false,
      state: 'after-close',
      reason: 'closed: after the close (15:30 KST)',
      opensAtMs: at('2026-03-11T00:00:00Z'),
    })
  })

  it('opens at 10:00 KST on CSAT day and on the first trading day, and is closed on 31 December', () => {
    expect(session(3, '2026-11-19T00:30:00Z')).toMatchObject({
      open: false,
      state: 'before-open',
      reason: 'closed: opens late at 10:00 KST (CSAT day)',
      opensAtMs: at('2026-11-19T01:00:00Z'),
      closesAtMs: at('2026-11-19T07:30:00Z'),
    })
    expect(session(3, '2026-11-19T07:00:00Z').reason).toBe('open: until 16:30 KST (CSAT day)')
    expect(session(3, '2026-12-31T02:00:00Z')).toMatchObject({
      open: false,
      reason: 'South Korea holiday: year-end closing day',
      // 1 January is a holiday, 2 and 3 January 2027 a weekend: Monday 4 January opens at 10:00 KST.
      opensAtMs: at('2027-01-04T01:00:00Z'),
    })
    expect(session(3, '2026-09-25T02:00:00Z').reason).toBe('South Korea holiday: Chuseok')
  })
})

describe('marketSessionAt: outside the shipped calendar', () => {
  it('knows weekdays and regular hours only, and says so', () => {
    // 1 January 2028 is a Saturday; Monday 3 January 2028 would be a KRX late open, unknown here.
    const monday = session(3, '2028-01-03T00:30:00Z')
    expect(monday.open).toBe(true)
    expect(monday.calendarKnown).toBe(false)
    expect(monday.reason).toBe(
      'open: regular session until 15:30 KST (no holiday calendar for 2028: weekdays and regular hours only)',
    )
    expect(session(0, '2025-12-25T15:00:00Z')).toMatchObject({ open: true, calendarKnown: false })
    expect(session(0, '2026-01-02T15:00:00Z')).toMatchObject({ open: true, calendarKnown: true })
  })

  it('refuses an instant that is not a number of milliseconds', () => {
    expect(() => marketSessionAt(0, Number.NaN)).toThrow(/is not a time/)
  })
})

describe('the shipped calendar', () => {
  it('lists only weekdays of its years, none both a holiday and a special day, windows in order', () => {
    for (const exchange of exchanges) {
      const calendar = marketCalendars[exchange]
      const dates = [...Object.keys(calendar.holidays), ...Object.keys(calendar.specialDays)]
      for (const date of dates) {
        expect(new Date(`${date}T00:00:00Z`).toISOString().slice(0, 10), date).toBe(date)
        expect([0, 6], `${calendar.name} ${date} is a weekend day`).not.toContain(
          new Date(`${date}T00:00:00Z`).getUTCDay(),
        )
        expect(calendar.calendarYears).toContain(Number(date.slice(0, 4)))
      }
      expect(new Set(dates).size).toBe(dates.length)
      for (const windows of [
        calendar.regular,
        ...Object.values(calendar.specialDays).map((day) => day.windows),
      ])
        for (const [index, window] of windows.entries()) {
          expect(window.open < window.close).toBe(true)
          if (index > 0) expect((windows[index - 1]?.close ?? '') < window.open).toBe(true)
        }
    }
  })
})

describe('marketSessionAt (property)', () => {
  // 2025 to mid 2028: across both shipped years and the weekday-only years on each side.
  const instants = fc.integer({ min: at('2025-06-01T00:00:00Z'), max: at('2028-06-01T00:00:00Z') })
  const anyExchange = fc.constantFrom(...exchanges)

  it('is open exactly when the instant lies within [opensAtMs, closesAtMs), and closed until its next open', () => {
    fc.assert(
      fc.property(anyExchange, instants, (exchange, instant) => {
        const now = marketSessionAt(exchange, instant)
        expect(now.opensAtMs).toBeLessThan(now.closesAtMs)
        expect(now.open).toBe(now.opensAtMs <= instant && instant < now.closesAtMs)
        expect(now.open).toBe(now.state === 'open')
        if (now.open) {
          // The window holds until its close, and ends there.
          expect(isMarketOpen(exchange, now.closesAtMs - 1)).toBe(true)
          expect(isMarketOpen(exchange, now.closesAtMs)).toBe(false)
          expect(isMarketOpen(exchange, now.opensAtMs)).toBe(true)
        } else {
          // Nothing opens between now and the next open, which is a real open.
          expect(now.opensAtMs).toBeGreaterThan(instant)
          expect(isMarketOpen(exchange, now.opensAtMs - 1)).toBe(false)
          const next = marketSessionAt(exchange, now.opensAtMs)
          expect(next).toMatchObject({ open: true, opensAtMs: now.opensAtMs, closesAtMs: now.closesAtMs })
          const midway = instant + Math.floor((now.opensAtMs - instant) / 2)
          expect(isMarketOpen(exchange, midway)).toBe(false)
        }
      }),
      { numRuns: 500 },
    )
  })
})
