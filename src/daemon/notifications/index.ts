// Notifications: the ledger's events (fills, failures, halts…) delivered to webhooks and chats
// through the outbox of the ledger (docs/notifications.md).

export * from './buildSinkRequest.js'
export * from './dailySummary.js'
export * from './deliverToSink.js'
export * from './formatBaseUnits.js'
export * from './formatNotificationText.js'
export * from './notificationEvents.js'
export * from './parseRetryAfter.js'
export * from './resolveNotificationSinks.js'
export * from './retryDelay.js'
export * from './signWebhookBody.js'
export * from './sinkSubscription.js'
export * from './startNotifier.js'
export * from './utcDayBefore.js'
