import type { ExchangeCode } from './markets.js'

// The trading calendar of each exchange the service lists, as data: regular hours in the
// exchange's own time zone, and for the years listed in `calendarYears` the weekdays it does not
// trade (holidays) and the weekdays it trades other hours (half days, late opens). Derived from
// the exchanges' published rules (docs/market-sessions.md names each source); it MUST be checked
// against each exchange's published calendar every year, and a new year added before it starts
// (docs/market-sessions.md says how). Outside those years marketSessions.ts knows weekdays and
// regular hours only (`calendarKnown: false`).

/** One trading window of a day, local wall-clock time `HH:MM` in the exchange's time zone; `close` excluded. */
export type SessionWindow = { readonly open: string; readonly close: string }

/** A weekday with other hours than the regular ones: its windows, and why. */
export type SpecialDay = {
  /** `half-day`: closes early; `late-open`: opens later (and may close later). */
  readonly kind: 'half-day' | 'late-open'
  readonly name: string
  readonly windows: readonly SessionWindow[]
}

/** An exchange's calendar. Dates are local (the exchange's time zone), `YYYY-MM-DD`. */
export type ExchangeCalendar = {
  /** How reasons name it: `US`, `Hong Kong`, `South Korea`. */
  readonly name: string
  /** IANA time zone of its hours. */
  readonly timeZone: string
  /** The zone's abbreviation in reasons (`ET` covers EST and EDT). */
  readonly zoneLabel: string
  /** A regular day's windows, in order; a gap between two is a break (Hong Kong's lunch). */
  readonly regular: readonly SessionWindow[]
  /** Years whose holidays and special days are listed (complete for those years). */
  readonly calendarYears: readonly number[]
  /** Weekdays the exchange is closed, with the holiday's name (weekend holidays are not listed). */
  readonly holidays: Readonly<Record<string, string>>
  /** Weekdays it trades other hours. */
  readonly specialDays: Readonly<Record<string, SpecialDay>>
}

const usHalfDay = (name: string): SpecialDay => ({
  kind: 'half-day',
  name,
  windows: [{ open: '09:30', close: '13:00' }],
})

const hkHalfDay = (name: string): SpecialDay => ({
  kind: 'half-day',
  name,
  windows: [{ open: '09:30', close: '12:00' }],
})

/** KRX opens an hour late on the year's first trading day (opening ceremony); the close stays 15:30. */
const krFirstTradingDay: SpecialDay = {
  kind: 'late-open',
  name: 'first trading day of the year',
  windows: [{ open: '10:00', close: '15:30' }],
}

/** On the college scholastic ability test (CSAT, 수능) day KRX opens and closes an hour late. */
const krCsatDay: SpecialDay = {
  kind: 'late-open',
  name: 'CSAT day',
  windows: [{ open: '10:00', close: '16:30' }],
}

/**
 * The shipped calendars of exchanges 0 (US: NYSE/Nasdaq hours), 1 (HKEX) and 3 (KRX), 2026 and 2027.
 *
 * @example
 * marketCalendars[1].holidays['2026-02-17'] // 'Lunar New Year'
 */
export const marketCalendars: Readonly<Record<ExchangeCode, ExchangeCalendar>> = {
  0: {
    name: 'US',
    timeZone: 'America/New_York',
    zoneLabel: 'ET',
    regular: [{ open: '09:30', close: '16:00' }],
    calendarYears: [2026, 2027],
    // NYSE holidays (NYSE Rule 7.2: a Saturday holiday is observed the Friday before, a Sunday one
    // the Monday after; New Year's Day on a Saturday is not observed).
    holidays: {
      '2026-01-01': "New Year's Day",
      '2026-01-19': 'Martin Luther King Jr. Day',
      '2026-02-16': "Washington's Birthday",
      '2026-04-03': 'Good Friday',
      '2026-05-25': 'Memorial Day',
      '2026-06-19': 'Juneteenth',
      '2026-07-03': 'Independence Day (observed)',
      '2026-09-07': 'Labor Day',
      '2026-11-26': 'Thanksgiving',
      '2026-12-25': 'Christmas',
      '2027-01-01': "New Year's Day",
      '2027-01-18': 'Martin Luther King Jr. Day',
      '2027-02-15': "Washington's Birthday",
      '2027-03-26': 'Good Friday',
      '2027-05-31': 'Memorial Day',
      '2027-06-18': 'Juneteenth (observed)',
      '2027-07-05': 'Independence Day (observed)',
      '2027-09-06': 'Labor Day',
      '2027-11-25': 'Thanksgiving',
      '2027-12-24': 'Christmas (observed)',
    },
    // Early closes at 13:00 ET. No July 3 early close in 2026 (July 3 is the observed holiday) or
    // 2027 (a Saturday); no Christmas Eve early close in 2027 (Dec 24 is the observed holiday).
    specialDays: {
      '2026-11-27': usHalfDay('day after Thanksgiving'),
      '2026-12-24': usHalfDay('Christmas Eve'),
      '2027-11-26': usHalfDay('day after Thanksgiving'),
    },
  },
  1: {
    name: 'Hong Kong',
    timeZone: 'Asia/Hong_Kong',
    zoneLabel: 'HKT',
    regular: [
      { open: '09:30', close: '12:00' },
      { open: '13:00', close: '16:00' },
    ],
    calendarYears: [2026, 2027],
    // HKEX is closed on Hong Kong general holidays (General Holidays Ordinance, Cap. 149: a holiday
    // on a Sunday moves to the next weekday; one on a Saturday does not move).
    holidays: {
      '2026-01-01': 'the first day of January',
      '2026-02-17': 'Lunar New Year',
      '2026-02-18': 'the second day of Lunar New Year',
      '2026-02-19': 'the third day of Lunar New Year',
      '2026-04-03': 'Good Friday',
      '2026-04-06': 'the day following Ching Ming Festival',
      '2026-04-07': 'the day following Easter Monday',
      '2026-05-01': 'Labour Day',
      '2026-05-25': 'the day following the Birthday of the Buddha',
      '2026-06-19': 'Tuen Ng Festival',
      '2026-07-01': 'HKSAR Establishment Day',
      '2026-10-01': 'National Day',
      '2026-10-19': 'the day following Chung Yeung Festival',
      '2026-12-25': 'Christmas Day',
      '2027-01-01': 'the first day of January',
      '2027-02-08': 'the third day of Lunar New Year',
      '2027-02-09': 'the fourth day of Lunar New Year',
      '2027-03-26': 'Good Friday',
      '2027-03-29': 'Easter Monday',
      '2027-04-05': 'Ching Ming Festival',
      '2027-05-13': 'the Birthday of the Buddha',
      '2027-06-09': 'Tuen Ng Festival',
      '2027-07-01': 'HKSAR Establishment Day',
      '2027-09-16': 'the day following Chinese Mid-Autumn Festival',
      '2027-10-01': 'National Day',
      '2027-10-08': 'Chung Yeung Festival',
      '2027-12-27': 'the first weekday after Christmas Day',
    },
    // Half days: the morning session only (to 12:00) on Christmas Eve, New Year's Eve and Lunar New
    // Year's Eve when they fall on a weekday.
    specialDays: {
      '2026-02-16': hkHalfDay("Lunar New Year's Eve"),
      '2026-12-24': hkHalfDay('Christmas Eve'),
      '2026-12-31': hkHalfDay("New Year's Eve"),
      '2027-02-05': hkHalfDay("Lunar New Year's Eve"),
      '2027-12-24': hkHalfDay('Christmas Eve'),
      '2027-12-31': hkHalfDay("New Year's Eve"),
    },
  },
  3: {
    name: 'South Korea',
    timeZone: 'Asia/Seoul',
    zoneLabel: 'KST',
    regular: [{ open: '09:00', close: '15:30' }],
    calendarYears: [2026, 2027],
    // KRX is closed on public holidays (substitute holidays included: a national holiday, Children's
    // Day, Buddha's Birthday or Christmas on a Saturday or Sunday moves to the next weekday; a
    // Seollal or Chuseok day on a Sunday does, on a Saturday does not), on Labour Day (May 1), on
    // election days, and on the last trading day of the year (Dec 31, year-end closing).
    holidays: {
      '2026-01-01': "New Year's Day",
      '2026-02-16': 'Seollal (Lunar New Year)',
      '2026-02-17': 'Seollal (Lunar New Year)',
      '2026-02-18': 'Seollal (Lunar New Year)',
      '2026-03-02': 'Independence Movement Day (substitute)',
      '2026-05-01': 'Labour Day',
      '2026-05-05': "Children's Day",
      '2026-05-25': "Buddha's Birthday (substitute)",
      '2026-06-03': 'local elections',
      '2026-08-17': 'Liberation Day (substitute)',
      '2026-09-24': 'Chuseok',
      '2026-09-25': 'Chuseok',
      '2026-10-05': 'National Foundation Day (substitute)',
      '2026-10-09': 'Hangul Day',
      '2026-12-25': 'Christmas',
      '2026-12-31': 'year-end closing day',
      '2027-01-01': "New Year's Day",
      '2027-02-05': 'Seollal (Lunar New Year)',
      '2027-02-08': 'Seollal (substitute)',
      '2027-03-01': 'Independence Movement Day',
      '2027-05-05': "Children's Day",
      '2027-05-13': "Buddha's Birthday",
      '2027-08-16': 'Liberation Day (substitute)',
      '2027-09-14': 'Chuseok',
      '2027-09-15': 'Chuseok',
      '2027-09-16': 'Chuseok',
      '2027-10-04': 'National Foundation Day (substitute)',
      '2027-10-11': 'Hangul Day (substitute)',
      '2027-12-27': 'Christmas (substitute)',
      '2027-12-31': 'year-end closing day',
    },
    specialDays: {
      '2026-01-02': krFirstTradingDay,
      '2026-11-19': krCsatDay,
      '2027-01-04': krFirstTradingDay,
      // Expected date (third Thursday, as usual): confirm when the Ministry of Education announces it.
      '2027-11-18': krCsatDay,
    },
  },
}
