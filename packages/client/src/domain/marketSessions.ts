import { StockrouteError } from './errors.js'
import {
  type ExchangeCalendar,
  marketCalendars,
  type SessionWindow,
  type SpecialDay,
} from './marketCalendar.js'
import { type ExchangeCode, exchangeNames } from './markets.js'

// Market sessions: whether an exchange trades at an instant, why (not), and when it opens and
// closes next, from the calendar of marketCalendar.ts. Pure: the instant is given, time zones are
// the runtime's Intl (IANA, daylight saving included), no I/O.

/** Where an instant falls in an exchange's day. */
export type MarketSessionState =
  | 'open'
  /** Between two windows of a trading day (Hong Kong's 12:00–13:00). */
  | 'lunch-break'
  | 'weekend'
  | 'holiday'
  | 'before-open'
  | 'after-close'

/** An exchange's session at an instant. */
export type MarketSession = {
  exchange: ExchangeCode
  open: boolean
  state: MarketSessionState
  /**
   * Why, for people: `open: regular session until 16:00 ET`, `half day: closes 13:00 ET (Christmas Eve)`,
   * `Hong Kong lunch break until 13:00 HKT`, `US holiday: Thanksgiving`, `closed: weekend`, …
   */
  reason: string
  /**
   * Open: when the current window opened (at or before the instant). Closed: when the market opens
   * next (after the instant). So `open` is exactly `opensAtMs <= instant < closesAtMs`.
   */
  opensAtMs: number
  /** Open: when the current window closes. Closed: when the next window (the one opening at `opensAtMs`) closes. */
  closesAtMs: number
  /**
   * Whether the shipped calendar covers the instant's local year (2026, 2027): false outside it,
   * where only weekends and regular hours are known (no holidays, half days or late opens).
   */
  calendarKnown: boolean
  /** The holiday's or special day's name, when the instant's local day is one. */
  dayName?: string
}

/**
 * The session of `exchange` (0 US, 1 Hong Kong, 3 South Korea) at `instantMs` (Unix ms): open or
 * not, why, and the bounds of the current window (open) or of the next one (closed). Hours are
 * the exchange's regular continuous trading in its own time zone (US 09:30–16:00 ET; Hong Kong
 * 09:30–12:00 and 13:00–16:00 HKT; Korea 09:00–15:30 KST), with the holidays, half days and late
 * opens of the shipped calendar (2026 and 2027). Outside those years only weekends and regular
 * hours apply, and `calendarKnown` is false.
 *
 * @example
 * marketSessionAt(1, Date.parse('2026-03-10T04:30:00Z')) // 12:30 HKT
 * // { open: false, state: 'lunch-break', reason: 'Hong Kong lunch break until 13:00 HKT', opensAtMs: Date.parse('2026-03-10T05:00:00Z'), … }
 */
export function marketSessionAt(exchange: ExchangeCode, instantMs: number): MarketSession {
  if (!Number.isFinite(instantMs))
    throw new StockrouteError({
      code: 'INVALID_PARAMETER',
      shortMessage: `the instant ${instantMs} is not a time: give Unix milliseconds, e.g. Date.now()`,
    })
  const calendar = marketCalendars[exchange]
  if (calendar === undefined)
    throw new StockrouteError({
      code: 'INVALID_PARAMETER',
      shortMessage: `exchange ${String(exchange)} has no market calendar: use 0 (US), 1 (Hong Kong) or 3 (South Korea)`,
    })
  const today = localDateOf(instantMs, calendar.timeZone)
  const day = dayOf(calendar, today)
  const windows = windowsOf(calendar, today, day)
  const named = day.name === undefined ? {} : { dayName: day.name }
  const base = { exchange, calendarKnown: day.calendarKnown, ...named }
  const unknownNote = day.calendarKnown
    ? ''
    : ` (no holiday calendar for ${today.slice(0, 4)}: weekdays and regular hours only)`

  const current = windows.find((window) => window.startMs <= instantMs && instantMs < window.endMs)
  if (current)
    return {
      ...base,
      open: true,
      state: 'open',
      reason: `${openReason(calendar, day, current, current === windows[windows.length - 1])}${unknownNote}`,
      opensAtMs: current.startMs,
      closesAtMs: current.endMs,
    }

  const next = nextWindow(calendar, today, windows, instantMs)
  const zone = calendar.zoneLabel
  const laterToday = windows.find((window) => window.startMs > instantMs)
  let state: MarketSessionState
  let reason: string
  if (day.kind === 'weekend') {
    state = 'weekend'
    reason = 'closed: weekend'
  } else if (day.kind === 'holiday') {
    state = 'holiday'
    reason = `${calendar.name} holiday: ${day.name}`
  } else if (laterToday !== undefined && laterToday !== windows[0]) {
    state = 'lunch-break'
    reason = `${calendar.name} lunch break until ${laterToday.open} ${zone}`
  } else if (laterToday !== undefined) {
    state = 'before-open'
    reason =
      day.special?.kind === 'late-open'
        ? `closed: opens late at ${laterToday.open} ${zone} (${day.name})`
        : `closed: before the open (${laterToday.open} ${zone})`
  } else {
    state = 'after-close'
    const last = windows[windows.length - 1]
    reason =
      day.special?.kind === 'half-day'
        ? `closed: half day, closed at ${last?.close} ${zone} (${day.name})`
        : `closed: after the close (${last?.close} ${zone})`
  }
  return {
    ...base,
    open: false,
    state,
    reason: `${reason}${unknownNote}`,
    opensAtMs: next.startMs,
    closesAtMs: next.endMs,
  }
}

/**
 * Whether `exchange` trades at `instantMs` ({@link marketSessionAt}'s `open`).
 *
 * @example
 * isMarketOpen(0, Date.parse('2026-11-26T15:00:00Z')) // false: Thanksgiving
 */
export function isMarketOpen(exchange: ExchangeCode, instantMs: number): boolean {
  return marketSessionAt(exchange, instantMs).open
}

/**
 * What a closed session is, in a few words: `lunch break`, `weekend`, `holiday: Thanksgiving`,
 * `before the open`, `after the close`; undefined when open.
 *
 * @example
 * closedLabel(marketSessionAt(1, Date.parse('2026-03-10T04:30:00Z'))) // 'lunch break'
 */
export function closedLabel(session: MarketSession): string | undefined {
  switch (session.state) {
    case 'open':
      return undefined
    case 'lunch-break':
      return 'lunch break'
    case 'weekend':
      return 'weekend'
    case 'holiday':
      return `holiday: ${session.dayName}`
    case 'before-open':
      return 'before the open'
    case 'after-close':
      return session.dayName === undefined ? 'after the close' : `after the close (${session.dayName})`
  }
}

/**
 * The note a price read at `atMs` carries when its exchange was closed then, e.g.
 * `price from a closed market (HKEX closed: lunch break)`; undefined while it was open.
 *
 * @example
 * closedMarketPriceNote(1, Date.parse('2026-03-10T04:30:00Z')) // 'price from a closed market (HKEX closed: lunch break)'
 */
export function closedMarketPriceNote(exchange: ExchangeCode, atMs: number): string | undefined {
  const label = closedLabel(marketSessionAt(exchange, atMs))
  return label === undefined
    ? undefined
    : `price from a closed market (${exchangeNames[exchange]} closed: ${label})`
}

/** A local day's kind in an exchange's calendar. */
type Day = {
  kind: 'weekend' | 'holiday' | 'trading'
  name?: string
  special?: SpecialDay
  calendarKnown: boolean
}

/** A window of one local day as instants. */
type TimedWindow = SessionWindow & { startMs: number; endMs: number }

function dayOf(calendar: ExchangeCalendar, date: string): Day {
  const calendarKnown = calendar.calendarYears.includes(Number(date.slice(0, 4)))
  const weekday = new Date(`${date}T00:00:00Z`).getUTCDay()
  if (weekday === 0 || weekday === 6) return { kind: 'weekend', calendarKnown }
  if (!calendarKnown) return { kind: 'trading', calendarKnown }
  const holiday = calendar.holidays[date]
  if (holiday !== undefined) return { kind: 'holiday', name: holiday, calendarKnown }
  const special = calendar.specialDays[date]
  if (special !== undefined) return { kind: 'trading', name: special.name, special, calendarKnown }
  return { kind: 'trading', calendarKnown }
}

function windowsOf(calendar: ExchangeCalendar, date: string, day: Day): TimedWindow[] {
  if (day.kind !== 'trading') return []
  return (day.special?.windows ?? calendar.regular).map((window) => ({
    ...window,
    startMs: instantOfLocal(date, window.open, calendar.timeZone),
    endMs: instantOfLocal(date, window.close, calendar.timeZone),
  }))
}

/** The first window opening after `instantMs`: later today, else on the next trading day. */
function nextWindow(
  calendar: ExchangeCalendar,
  today: string,
  windows: readonly TimedWindow[],
  instantMs: number,
): TimedWindow {
  const later = windows.find((window) => window.startMs > instantMs)
  if (later) return later
  // Every exchange trades within two weeks of any day (the longest closure is about a week).
  for (let offset = 1; offset <= 31; offset++) {
    const date = addDays(today, offset)
    const [first] = windowsOf(calendar, date, dayOf(calendar, date))
    if (first) return first
  }
  throw new Error(`no trading day within 31 days after ${today} in the ${calendar.name} calendar`)
}

function openReason(calendar: ExchangeCalendar, day: Day, window: TimedWindow, last: boolean): string {
  const zone = calendar.zoneLabel
  if (day.special?.kind === 'half-day') return `half day: closes ${window.close} ${zone} (${day.name})`
  if (day.special?.kind === 'late-open') return `open: until ${window.close} ${zone} (${day.name})`
  if (!last) return `open: morning session until ${window.close} ${zone}`
  return `open: regular session until ${window.close} ${zone}`
}

const formatters = new Map<string, Intl.DateTimeFormat>()

function formatterOf(timeZone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(timeZone)
  if (!formatter) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone,
      hourCycle: 'h23',
      year: 'numeric',
      month: '2-digit',
      day: '2-digit',
      hour: '2-digit',
      minute: '2-digit',
      second: '2-digit',
    })
    formatters.set(timeZone, formatter)
  }
  return formatter
}

/** The wall-clock reading in `timeZone` at `instantMs`, to the second. */
function localPartsOf(instantMs: number, timeZone: string) {
  const parts: Record<string, number> = {}
  for (const part of formatterOf(timeZone).formatToParts(instantMs))
    if (part.type !== 'literal') parts[part.type] = Number(part.value)
  return {
    year: parts.year ?? 0,
    month: parts.month ?? 1,
    day: parts.day ?? 1,
    hour: parts.hour ?? 0,
    minute: parts.minute ?? 0,
    second: parts.second ?? 0,
  }
}

/** The local date (`YYYY-MM-DD`) in `timeZone` at `instantMs`. */
function localDateOf(instantMs: number, timeZone: string): string {
  const { year, month, day } = localPartsOf(instantMs, timeZone)
  return `${String(year).padStart(4, '0')}-${String(month).padStart(2, '0')}-${String(day).padStart(2, '0')}`
}

/** Milliseconds `timeZone` is ahead of UTC at `instantMs`. */
function offsetAt(instantMs: number, timeZone: string): number {
  const local = localPartsOf(instantMs, timeZone)
  const wall = Date.UTC(local.year, local.month - 1, local.day, local.hour, local.minute, local.second)
  return wall - Math.floor(instantMs / 1000) * 1000
}

/**
 * The instant the wall clock of `timeZone` reads `hhmm` on `date`. Two passes, so that a date on
 * which the offset changes (daylight saving) gets the offset of the time itself; session times
 * never fall in a skipped or repeated hour.
 */
function instantOfLocal(date: string, hhmm: string, timeZone: string): number {
  const [year, month, day] = date.split('-').map(Number) as [number, number, number]
  const [hour, minute] = hhmm.split(':').map(Number) as [number, number]
  const wall = Date.UTC(year, month - 1, day, hour, minute)
  const first = wall - offsetAt(wall, timeZone)
  return wall - offsetAt(first, timeZone)
}

function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * 86_400_000).toISOString().slice(0, 10)
}
