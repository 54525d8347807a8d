import type { NotificationRecord } from '../../store/index.js'
import { type AssetSymbolOf, formatNotificationText } from './formatNotificationText.js'
import { notificationEventOf } from './notificationEvents.js'
import type { NotificationSink } from './resolveNotificationSinks.js'
import { signWebhookBody } from './signWebhookBody.js'

/** An HTTP request to a sink. `url` may hold a secret (bot token, chat webhook): never log it. */
export type SinkRequest = { url: string; headers: Record<string, string>; body: string }

const truncate = (text: string, max: number): string =>
  text.length > max ? `${text.slice(0, max - 1)}…` : text

/**
 * The request that delivers one outbox row to its sink:
 * - `webhook`: POST `url`, JSON `{ id, type, sink, text, event }` (`id` the idempotency key, `event`
 *   the ledger event with `at` in ISO 8601), headers `Idempotency-Key`, `X-Stockroute-Timestamp`
 *   (Unix ms of this attempt) and `X-Stockroute-Signature: sha256=<hex HMAC-SHA256 of the body>`.
 *   The body is the same bytes on every attempt.
 * - `telegram`: POST `{apiBaseUrl}/bot<token>/sendMessage`, `{ chat_id, text }` (plain text).
 * - `discord`: POST the webhook URL, `{ content }` (at most 2000 characters).
 * - `slack`: POST the webhook URL, `{ text }`.
 * Every kind carries the `Idempotency-Key` header (chat services ignore it; a proxy may use it).
 *
 * @example
 * const { url, headers, body } = buildSinkRequest(sink, row, { nowMs: Date.now() })
 * await fetch(url, { method: 'POST', headers, body })
 */
export function buildSinkRequest(
  sink: NotificationSink,
  row: NotificationRecord,
  options: { nowMs: number; assetSymbolOf?: AssetSymbolOf | undefined },
): SinkRequest {
  const text = formatNotificationText(row.event, options.assetSymbolOf)
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'stockroute-notifier',
    'idempotency-key': row.idempotencyKey,
  }
  switch (sink.kind) {
    case 'webhook': {
      const body = JSON.stringify({
        id: row.idempotencyKey,
        type: notificationEventOf(row.event) ?? row.event.kind,
        sink: sink.name,
        text,
        event: { ...row.event, at: new Date(row.event.atMs).toISOString() },
      })
      headers['x-stockroute-timestamp'] = String(options.nowMs)
      headers['x-stockroute-signature'] = signWebhookBody(sink.secret, body)
      return { url: sink.url, headers, body }
    }
    case 'telegram':
      return {
        url: `${sink.apiBaseUrl}/bot${sink.botToken}/sendMessage`,
        headers,
        body: JSON.stringify({ chat_id: sink.chatId, text: truncate(text, 4096) }),
      }
    case 'discord':
      return { url: sink.url, headers, body: JSON.stringify({ content: truncate(text, 2000) }) }
    case 'slack':
      return { url: sink.url, headers, body: JSON.stringify({ text: truncate(text, 3000) }) }
  }
}
