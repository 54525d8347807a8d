import { latestCronFireTimes } from './latestCronFireTimes.js'

/** Windows searched in turn, widening: a frequent schedule is found in the first, a yearly one in the last. */
const windowsMs = [10_000, 60_000, 3_600_000, 86_400_000, 7 * 86_400_000, 32 * 86_400_000, 367 * 86_400_000]

/**
 * The first fire time of a node-cron expression after `afterMs` (epoch ms), within a year; null
 * when it fires in none. Searches widening windows forward, each with {@link latestCronFireTimes},
 * so the first window holding a fire gives the earliest.
 *
 * @example
 * nextCronFireTime({ expression: '0 14 * * 1-5', timezone: 'UTC', afterMs: Date.parse('2026-01-03T00:00:00Z') })
 * // Date.parse('2026-01-05T14:00:00Z')
 */
export function nextCronFireTime(parameters: {
  expression: string
  timezone: string
  afterMs: number
}): number | null {
  for (const windowMs of windowsMs) {
    const fires = latestCronFireTimes({
      expression: parameters.expression,
      timezone: parameters.timezone,
      afterMs: parameters.afterMs,
      untilMs: parameters.afterMs + windowMs,
      // Enough for any window whose narrower predecessor held no fire.
      count: 100_000,
    })
    if (fires.length > 0) return fires[0] ?? null
  }
  return null
}
