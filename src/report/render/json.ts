import type { Report } from '../types.js'

/**
 * A report as JSON text (two-space indent, newline-terminated): the {@link Report} itself, amounts
 * already decimal strings, so nothing is lost and no bigint becomes a float.
 *
 * @example
 * JSON.parse(renderReportJson(report)).tables[0].rows
 */
export function renderReportJson(report: Report): string {
  return `${JSON.stringify(report, null, 2)}\n`
}
