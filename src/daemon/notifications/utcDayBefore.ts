/**
 * The UTC day before the one `nowMs` falls in, as the window of `appendDailySummary`: what a job
 * that runs shortly after midnight UTC summarizes.
 *
 * @example
 * utcDayBefore(Date.parse('2025-06-02T00:05:00Z'))
 * // { dayStartMs: Date.parse('2025-06-01T00:00:00Z'), dayEndMs: Date.parse('2025-06-02T00:00:00Z') }
 */
export function utcDayBefore(nowMs: number): { dayStartMs: number; dayEndMs: number } {
  const dayEndMs = new Date(nowMs).setUTCHours(0, 0, 0, 0)
  return { dayStartMs: dayEndMs - 86_400_000, dayEndMs }
}
