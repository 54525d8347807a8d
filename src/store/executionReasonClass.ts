import type { ExecutionState } from './executionStates.js'

/** Classes of an execution's last reason, in the order they are tried (the first match wins). */
const reasonClasses: readonly { readonly class: string; readonly pattern: RegExp }[] = [
  { class: 'kill switch', pattern: /^kill switch:/ },
  { class: 'risk limit', pattern: /^risk limit:/ },
  { class: 'dry run', pattern: /^dry run:/ },
  { class: 'cancelled', pattern: /^cancel|cancelled before broadcast|nothing was signed$/ },
  { class: 'service refused the quote', pattern: /^the service refused the quote/ },
  { class: 'no quote with enough validity', pattern: /^no quote with enough validity/ },
  { class: 'simulation failed', pattern: /^the simulation of execute/ },
  { class: 'node refused a transaction', pattern: /^the node refused/ },
  {
    class: 'mined after the quote expired',
    pattern: /mined after the quote expired|cancelled by replacement/,
  },
  { class: 'reverted on chain', pattern: /reverted in block/ },
  { class: 'never mined', pattern: /will never be mined/ },
  { class: 'no settlement event', pattern: /emitted no QuoteExecuted/ },
  { class: 'stopped by an error', pattern: /^stopped by an error/ },
]

/**
 * The class of an execution's reason, for counting executions by why they ended: `settled` for a
 * confirmed one, `in progress` for one not finished, `guard <rule>` for a quote the guard refused
 * (the rule as the guard names it), one of the fixed classes above, else `other`.
 *
 * @example
 * reasonClassOf('rejected', 'guard price-deviation: the quote is 412 bps from the market') // 'guard price-deviation'
 * reasonClassOf('confirmed', 'settled in block 12 by 0xab…') // 'settled'
 */
export function reasonClassOf(state: ExecutionState, reason: string): string {
  if (state === 'confirmed') return 'settled'
  if (state !== 'failed' && state !== 'expired' && state !== 'rejected') return 'in progress'
  const guard = /^guard ([a-z-]+):/.exec(reason)
  if (guard) return `guard ${guard[1]}`
  return reasonClasses.find((entry) => entry.pattern.test(reason))?.class ?? 'other'
}
