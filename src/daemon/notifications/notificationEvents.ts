import type { NotificationEventName } from '../../config/notificationsConfig.js'
import { endedWithoutTrade } from '../../store/executionStates.js'
import type { LedgerEvent, LedgerEventKind } from '../../store/index.js'

// Which ledger events each notification name covers (the names a sink subscribes to are
// `notificationEventNames`, src/config/notificationsConfig.ts).

/**
 * The ledger kinds behind each notification name. `fill` also covers `fill_reversed` (a reorg took a
 * notified fill back: a subscriber to fills must hear of it); `halt` also covers `entry_halt` (a risk
 * limit halted new entries by itself); `failure` is the `execution` events
 * whose `data.to` is a failure state (see {@link notificationEventOf}).
 */
export const ledgerKindsByNotification = {
  fill: ['fill', 'fill_reversed'],
  failure: ['execution'],
  halt: ['halt', 'resume', 'entry_halt'],
  discrepancy: ['discrepancy'],
  recovery: ['recovery'],
  daily_summary: ['daily_summary'],
} as const satisfies Record<NotificationEventName, readonly LedgerEventKind[]>

/**
 * The notification name a ledger event is sent as, or undefined when it is none (an execution
 * moving to a state that is not a failure).
 *
 * @example
 * notificationEventOf({ kind: 'execution', data: { to: 'rejected' } }) // 'failure'
 * notificationEventOf({ kind: 'execution', data: { to: 'quoted' } }) // undefined
 */
export function notificationEventOf(
  event: Pick<LedgerEvent, 'kind' | 'data'>,
): NotificationEventName | undefined {
  switch (event.kind) {
    case 'fill':
    case 'fill_reversed':
      return 'fill'
    case 'execution':
      // An execution that ended without a trade is what `failure` reports.
      return typeof event.data.to === 'string' && endedWithoutTrade(event.data.to) ? 'failure' : undefined
    case 'halt':
    case 'resume':
    case 'entry_halt':
      return 'halt'
    default:
      return event.kind
  }
}
