import type { NotificationEventName } from '../../config/notificationsConfig.js'
import type { LedgerEvent, LedgerEventKind } from '../../store/index.js'
import { ledgerKindsByNotification, notificationEventOf } from './notificationEvents.js'

/** What `ledger.notifications.enqueueNew` needs to pick a sink's events. */
export type SinkSubscription = {
  /** The ledger kinds to look at. */
  kinds: LedgerEventKind[]
  /** The fine filter on an event's data (an execution event is a `failure` only for some states). */
  accept: (event: LedgerEvent) => boolean
}

/**
 * The ledger kinds and the data filter of a sink subscribed to `events`.
 *
 * @example
 * const { kinds, accept } = sinkSubscription(['fill', 'failure'])
 * ledger.notifications.enqueueNew('ops', kinds, { accept })
 */
export function sinkSubscription(events: readonly NotificationEventName[]): SinkSubscription {
  const wanted = new Set(events)
  const kinds = new Set<LedgerEventKind>(events.flatMap((name) => ledgerKindsByNotification[name]))
  return {
    kinds: [...kinds],
    accept: (event) => {
      const name = notificationEventOf(event)
      return name !== undefined && wanted.has(name)
    },
  }
}
