/**
 * Unix ms of a time the control API sent as ISO 8601 (or as Unix ms); null when absent or unreadable.
 *
 * @example
 * timeMsOf('2026-11-25T10:00:00.000Z') // 1795600800000
 */
export function timeMsOf(time: string | number | null | undefined): number | null {
  if (time === null || time === undefined) return null
  const ms = typeof time === 'number' ? time : Date.parse(time)
  return Number.isFinite(ms) ? ms : null
}
