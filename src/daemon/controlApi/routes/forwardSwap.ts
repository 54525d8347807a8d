import { ControlApiError } from '../errors.js'
import type { ControlReply, ControlRequest } from '../types.js'

/** The header a forwarded swap carries: the daemon it came from. A forwarded swap runs where it lands. */
export const forwardedByHeader = 'x-stockroute-forwarded-by'

/**
 * Sends a swap on to the daemon that owns its Idempotency-Key (cluster mode), with the caller's own
 * token (the cluster's daemons share it), and answers with that daemon's reply: its status, body and
 * headers, `links.self` made absolute (the execution id is that daemon's), and `X-Stockroute-Node`
 * naming it.
 *
 * @example
 * return forwardSwap({ request, body, to: { nodeId: 'b', controlUrl: 'http://127.0.0.1:8788' }, from: 'a' })
 */
export async function forwardSwap(parameters: {
  request: ControlRequest
  body: unknown
  to: { nodeId: string; controlUrl: string }
  from: string
}): Promise<ControlReply> {
  const { request, to } = parameters
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'idempotency-key': String(request.headers['idempotency-key']),
    [forwardedByHeader]: parameters.from,
  }
  if (request.headers.authorization) headers.authorization = request.headers.authorization
  let response: Response
  try {
    response = await fetch(`${to.controlUrl}/v1/swaps`, {
      method: 'POST',
      headers,
      body: JSON.stringify(parameters.body),
      signal: AbortSignal.timeout(10_000),
    })
  } catch (error) {
    throw new ControlApiError({
      status: 503,
      code: 'OWNER_UNAVAILABLE',
      message: `The swap's Idempotency-Key belongs to daemon ${to.nodeId} (${to.controlUrl}), which did not answer (${(error as Error).message}): send it again with the same key.`,
      headers: { 'retry-after': '2' },
      cause: error,
    })
  }
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>
  const links = body.links as { self?: string } | undefined
  if (links?.self?.startsWith('/')) body.links = { ...links, self: `${to.controlUrl}${links.self}` }
  const replyHeaders: Record<string, string> = { 'x-stockroute-node': to.nodeId }
  for (const name of ['location', 'idempotent-replay', 'retry-after']) {
    const value = response.headers.get(name)
    if (value !== null)
      replyHeaders[name] = name === 'location' && value.startsWith('/') ? `${to.controlUrl}${value}` : value
  }
  return { status: response.status, headers: replyHeaders, body }
}
