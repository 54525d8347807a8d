import type { ReportFilter } from '../types.js'

/**
 * A report filter in words, for titles: `chain 31337, ticker AAPL, since 2026-11-25T10:00:00.000Z`,
 * or `all` when it narrows nothing.
 *
 * @example
 * describeFilter({ chainId: 31337, strategy: 'dca' }) // 'chain 31337, strategy dca'
 */
export function describeFilter(filter: ReportFilter): string {
  const parts: string[] = []
  if (filter.chainId !== undefined) parts.push(`chain ${filter.chainId}`)
  if (filter.ticker !== undefined) parts.push(`ticker ${filter.ticker}`)
  if (filter.strategy !== undefined) parts.push(`strategy ${filter.strategy}`)
  if (filter.sinceMs !== undefined) parts.push(`since ${new Date(filter.sinceMs).toISOString()}`)
  if (filter.untilMs !== undefined) parts.push(`until ${new Date(filter.untilMs).toISOString()}`)
  return parts.length === 0 ? 'all' : parts.join(', ')
}
