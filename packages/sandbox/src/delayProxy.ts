// A loopback HTTP proxy that adds a fixed latency to every request before forwarding it: the
// service seen from far away, for the latency scenario of bench:engine and for tests of what the
// engine does while a quote is in the air (the RPC side uses rpcFaultProxy's delayMs).
import { createServer, request } from 'node:http'
import type { AddressInfo } from 'node:net'

export type DelayProxy = { url: string; stop(): Promise<void> }

/**
 * @example
 * const proxy = await startDelayProxy({ upstream: service.url, delayMs: 200 })
 */
export async function startDelayProxy(parameters: {
  upstream: string
  delayMs: number
}): Promise<DelayProxy> {
  const upstream = new URL(parameters.upstream)
  const server = createServer((incoming, outgoing) => {
    const chunks: Buffer[] = []
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk))
    incoming.on('end', () => {
      setTimeout(() => {
        const forwarded = request(
          {
            hostname: upstream.hostname,
            port: upstream.port,
            path: incoming.url,
            method: incoming.method,
            headers: { ...incoming.headers, host: upstream.host },
          },
          (reply) => {
            outgoing.writeHead(reply.statusCode ?? 502, reply.headers)
            reply.pipe(outgoing)
          },
        )
        forwarded.on('error', (error) => {
          outgoing.writeHead(502, { 'content-type': 'text/plain' })
          outgoing.end(`delayProxy: ${error.message}`)
        })
        forwarded.end(Buffer.concat(chunks))
      }, parameters.delayMs)
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
