import { createHmac } from 'node:crypto'

/**
 * The `X-Stockroute-Signature` of a webhook body: `sha256=` and the hex HMAC-SHA256 of the raw body
 * bytes with the sink's secret. A receiver computes the same over the bytes it received and compares
 * in constant time (docs/notifications.md).
 *
 * @example
 * signWebhookBody(process.env.OPS_WEBHOOK_SECRET, rawBody) // 'sha256=5d41…'
 */
export function signWebhookBody(secret: string, body: string | Uint8Array): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`
}
