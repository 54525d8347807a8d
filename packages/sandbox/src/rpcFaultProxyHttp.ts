import {
  type Agent,
  request as httpRequest,
  type IncomingHttpHeaders,
  type IncomingMessage,
  type ServerResponse,
} from 'node:http'

// The HTTP plumbing of the RPC fault proxy (rpcFaultProxy.ts): reading bodies, forwarding a request
// to the node and answering plain-text errors. Nothing here knows about faults.

/** Largest request body forwarded (anvil's own limit is far above any real call). */
const maxBodyBytes = 16 * 1024 * 1024

export type UpstreamReply = { status: number; headers: IncomingHttpHeaders; body: Buffer }

/** Sends `body` to `upstream` with `req`'s method and headers (hop-by-hop ones left out). */
export function forward(
  upstream: URL,
  agent: Agent,
  req: IncomingMessage,
  body: Buffer,
): Promise<UpstreamReply> {
  return new Promise((resolve, reject) => {
    const headers = passHeaders(req.headers)
    headers.host = upstream.host
    headers['content-length'] = String(body.length)
    const outgoing = httpRequest(
      {
        agent,
        protocol: upstream.protocol,
        hostname: upstream.hostname,
        port: upstream.port,
        path: `${upstream.pathname}${upstream.search}`,
        method: req.method,
        headers,
        timeout: 30_000,
      },
      (incoming) => {
        readBody(incoming)
          .then((reply) => {
            const replyHeaders = passHeaders(incoming.headers)
            replyHeaders['content-length'] = String(reply.length)
            resolve({ status: incoming.statusCode ?? 502, headers: replyHeaders, body: reply })
          })
          .catch(reject)
      },
    )
    outgoing.once('timeout', () => outgoing.destroy(new Error('no answer within 30 s')))
    outgoing.once('error', reject)
    outgoing.end(body)
  })
}

/** Hop-by-hop headers are the connection's, not the message's: never passed on. */
const hopByHop = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'upgrade',
  'te',
  'trailer',
  'content-length',
])

function passHeaders(headers: IncomingHttpHeaders): Record<string, string | string[]> {
  const passed: Record<string, string | string[]> = {}
  for (const [name, value] of Object.entries(headers))
    if (value !== undefined && !hopByHop.has(name)) passed[name] = value
  return passed
}

export function readBody(stream: IncomingMessage): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    stream.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > maxBodyBytes) {
        stream.destroy()
        reject(new Error(`body over ${maxBodyBytes} bytes`))
      } else chunks.push(chunk)
    })
    stream.once('end', () => resolve(Buffer.concat(chunks)))
    stream.once('error', reject)
    stream.once('aborted', () => reject(new Error('request aborted')))
  })
}

export function answer(res: ServerResponse, status: number, text: string) {
  res.writeHead(status, {
    'content-type': 'text/plain; charset=utf-8',
    'content-length': Buffer.byteLength(text),
  })
  res.end(text)
}
