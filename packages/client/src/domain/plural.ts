/**
 * A count with its noun, singular for exactly one: `plural(1, 'execution')` is '1 execution',
 * `plural(2, 'strategy', 'strategies')` is '2 strategies'. Without `pluralForm`, an 's' is added.
 *
 * @example
 * plural(3, 'discrepancy', 'discrepancies') // '3 discrepancies'
 */
export function plural(count: number | bigint, singular: string, pluralForm = `${singular}s`): string {
  return `${count} ${count === 1 || count === 1n ? singular : pluralForm}`
}
