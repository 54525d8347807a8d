import type { ReportValue } from '../types.js'

/**
 * A report value as text: null is empty, numbers in plain decimal. CSV and HTML show exactly this.
 *
 * @example
 * cellText(null) // ''
 * cellText(41) // '41'
 */
export function cellText(value: ReportValue | undefined): string {
  if (value === null || value === undefined) return ''
  return typeof value === 'number' ? String(value) : value
}
