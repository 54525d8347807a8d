import cron from 'node-cron'

const secondMs = 1_000
const dayMs = 86_400_000

/** What {@link latestCronFireTimes} searches: an expression, its time zone, a window and a count. */
export type CronWindow = {
  /** A valid node-cron expression (5 fields, or 6 with seconds first). */
  expression: string
  /** IANA time zone the expression is read in, e.g. `UTC` or `America/New_York`. */
  timezone: string
  /** Exclusive lower bound, epoch ms. */
  afterMs: number
  /** Inclusive upper bound, epoch ms. */
  untilMs: number
  /** Most fire times returned: the latest ones. */
  count: number
}

/**
 * The latest `count` fire times of a node-cron expression in `(afterMs, untilMs]`, ascending, as
 * epoch ms. A pure equivalent of node-cron's `getNextRuns` (which counts from the wall clock):
 * fields are expanded by node-cron's own parser, days (including `L`, `W`, `#` and `L` weekday
 * tokens) are judged by a node-cron matcher, and the search runs backward from `untilMs`, so
 * finding the last missed fire after a long downtime costs a few microseconds per day, not one
 * step per fire. Wall-clock fire times that a daylight-saving jump skips do not fire; those it
 * repeats fire at both instants.
 *
 * @example
 * latestCronFireTimes({
 *   expression: '*\/5 * * * * *',
 *   timezone: 'UTC',
 *   afterMs: Date.parse('2026-01-05T14:00:00Z'),
 *   untilMs: Date.parse('2026-01-05T14:00:12Z'),
 *   count: 10,
 * }) // [Date.parse('2026-01-05T14:00:05Z'), Date.parse('2026-01-05T14:00:10Z')]
 */
export function latestCronFireTimes(window: CronWindow): number[] {
  const { expression, timezone, afterMs, untilMs, count } = window
  const fields = cron.parse(expression)
  const seconds = descending(fields.second)
  const minutes = descending(fields.minute)
  const hours = descending(fields.hour)
  const found: number[] = []
  const lowest = Math.floor(afterMs / secondMs) * secondMs + secondMs
  let upper = Math.floor(untilMs / secondMs) * secondMs
  if (count <= 0 || upper < lowest) return found

  // Day-of-month, month and day-of-week are judged by node-cron itself, on wall-clock time: a
  // matcher in UTC asked about an allowed second, minute and hour of the day in question.
  const dayMatcher = cron.createTask(expression, () => undefined, { timezone: 'UTC' })
  const probe = { hour: hours.at(-1) ?? 0, minute: minutes.at(-1) ?? 0, second: seconds.at(-1) ?? 0 }
  const dayVerdicts = new Map<number, boolean>()
  const dayMatches = (dayStart: number) => {
    let verdict = dayVerdicts.get(dayStart)
    if (verdict === undefined) {
      const at = dayStart + ((probe.hour * 60 + probe.minute) * 60 + probe.second) * secondMs
      verdict = dayMatcher.match(new Date(at))
      dayVerdicts.set(dayStart, verdict)
    }
    return verdict
  }
  const offsetAt = utcOffsetReader(timezone)
  try {
    // Walk back through spans of at most a day in which the zone's UTC offset is constant; in
    // each, search wall-clock time (UTC instant + offset) from its end down to its start.
    while (upper >= lowest && found.length < count) {
      const offset = offsetAt(upper)
      let spanStart = Math.max(lowest, upper - dayMs)
      if (offsetAt(spanStart) !== offset) {
        let before = spanStart
        let from = upper
        while (from - before > secondMs) {
          const middle = before + Math.floor((from - before) / (2 * secondMs)) * secondMs
          if (offsetAt(middle) === offset) from = middle
          else before = middle
        }
        spanStart = from
      }
      let cursor = upper + offset
      const wallLowest = spanStart + offset
      search: while (cursor >= wallLowest) {
        const dayStart = Math.floor(cursor / dayMs) * dayMs
        if (dayMatches(dayStart)) {
          const secondOfDay = (cursor - dayStart) / secondMs
          const hourNow = Math.floor(secondOfDay / 3600)
          const minuteNow = Math.floor((secondOfDay % 3600) / 60)
          const secondNow = secondOfDay % 60
          for (const hour of hours) {
            if (hour > hourNow) continue
            for (const minute of minutes) {
              if (hour === hourNow && minute > minuteNow) continue
              for (const second of seconds) {
                if (hour === hourNow && minute === minuteNow && second > secondNow) continue
                const wall = dayStart + ((hour * 60 + minute) * 60 + second) * secondMs
                if (wall < wallLowest) break search
                found.push(wall - offset)
                if (found.length >= count) break search
              }
            }
          }
        }
        cursor = dayStart - secondMs
      }
      upper = spanStart - secondMs
    }
  } finally {
    dayMatcher.destroy()
  }
  return found.reverse()
}

function descending(values: readonly (number | string)[]): number[] {
  return values.filter((value): value is number => typeof value === 'number').sort((a, b) => b - a)
}

/** A function giving `timezone`'s UTC offset (wall clock minus UTC) in ms at a whole-second instant. */
function utcOffsetReader(timezone: string): (atMs: number) => number {
  if (timezone === 'UTC' || timezone === 'Etc/UTC') return () => 0
  const format = new Intl.DateTimeFormat('en-US', {
    timeZone: timezone,
    hourCycle: 'h23',
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
  })
  return (atMs) => {
    const parts: Record<string, number> = {}
    for (const part of format.formatToParts(new Date(atMs)))
      if (part.type !== 'literal') parts[part.type] = Number(part.value)
    const wall = Date.UTC(
      parts.year ?? 1970,
      (parts.month ?? 1) - 1,
      parts.day ?? 1,
      (parts.hour ?? 0) % 24,
      parts.minute ?? 0,
      parts.second ?? 0,
    )
    return wall - atMs
  }
}
