import { InvalidArgumentError } from 'commander'

/**
 * Commander parser for a time option: an ISO 8601 time, or an age back from now (`30m`, `6h`,
 * `2d`, `90s`), for `--since` and `--until` of `executions` and `report`.
 *
 * @example
 * parseTimeOption('2026-11-25T10:00Z') // Date 2026-11-25T10:00:00.000Z
 * parseTimeOption('6h') // six hours ago
 */
export function parseTimeOption(text: string): Date {
  const age = /^(\d{1,6})([smhd])$/.exec(text)
  if (age) {
    const unitMs = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 }[age[2] as 's' | 'm' | 'h' | 'd']
    return new Date(Date.now() - Number(age[1]) * unitMs)
  }
  const ms = /^\d{4}-\d{2}-\d{2}/.test(text) ? Date.parse(text) : Number.NaN
  if (!Number.isFinite(ms))
    throw new InvalidArgumentError(
      'must be an ISO 8601 time such as 2026-11-25T10:00Z, or an age such as 30m, 6h, 2d',
    )
  return new Date(ms)
}
