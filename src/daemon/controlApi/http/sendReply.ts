import type { ServerResponse } from 'node:http'
import type { ControlReply } from '../types.js'

/**
 * Writes a reply: an object body as JSON (`application/json`, bigints as decimal strings), a string
 * body as it is (`text/plain` unless the reply names its content type), with `Content-Length` and
 * the server's own headers (which the reply's headers override).
 *
 * @example
 * sendReply(outgoing, { status: 200, body: { ok: true } }, { 'x-request-id': id }) // {"ok":true}
 * sendReply(outgoing, { status: 200, headers: { 'content-type': 'text/plain; version=0.0.4' }, body: metricsText })
 */
export function sendReply(
  outgoing: ServerResponse,
  reply: ControlReply,
  serverHeaders: Readonly<Record<string, string>>,
): void {
  const headers: Record<string, string> = { ...serverHeaders }
  for (const [name, value] of Object.entries(reply.headers ?? {})) headers[name.toLowerCase()] = value
  const text =
    typeof reply.body === 'string'
      ? reply.body
      : JSON.stringify(reply.body, (_key, value: unknown) =>
          typeof value === 'bigint' ? value.toString() : value,
        )
  headers['content-type'] ??=
    typeof reply.body === 'string' ? 'text/plain; charset=utf-8' : 'application/json'
  headers['content-length'] = String(Buffer.byteLength(text))
  outgoing.writeHead(reply.status, headers)
  outgoing.end(text)
}
