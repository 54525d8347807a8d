import type { EntryHaltView } from '../daemon/controlApi/contract.js'

/**
 * An entry halt of the risk limits in words, as `doctor` and `stockroute halt|resume` say it: its
 * scope, reason, rule and since when.
 *
 * @example
 * describeEntryHalt({ chainId: null, rule: 'maxDrawdownPct', reason: 'drawdown 12.5% from the peak, over the limit of 10%', since: '2026-12-07T04:00:00.000Z' })
 * // 'all chains: drawdown 12.5% from the peak, over the limit of 10% (maxDrawdownPct, since 2026-12-07T04:00:00.000Z)'
 */
export function describeEntryHalt(
  halt: Pick<EntryHaltView, 'chainId' | 'rule' | 'reason' | 'since'>,
): string {
  return `${halt.chainId === null ? 'all chains' : `chain ${halt.chainId}`}: ${halt.reason} (${halt.rule}, since ${halt.since})`
}
