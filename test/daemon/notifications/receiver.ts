import { createServer, type IncomingHttpHeaders, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll } from 'vitest'

/** A request the receiver got: the raw body, as the sink's HMAC covers it. */
export type ReceivedRequest = { method: string; path: string; headers: IncomingHttpHeaders; body: string }

/** What the receiver answers; `hang`: never answer (the socket stays open until the server closes). */
export type Reply = { status: number; headers?: Record<string, string>; body?: string } | 'hang'

export type Receiver = {
  url: string
  port: number
  requests: ReceivedRequest[]
  /** Answers from now on; the default answers 200. */
  respond(reply: (request: ReceivedRequest, index: number) => Reply): void
  close(): Promise<void>
}

const servers = new Set<Server>()
afterAll(async () => {
  await Promise.all([...servers].map((server) => closeServer(server)))
})

function closeServer(server: Server): Promise<void> {
  servers.delete(server)
  return new Promise((resolve) => {
    server.closeAllConnections()
    server.close(() => resolve())
  })
}

/**
 * A real HTTP server on 127.0.0.1 that records every request and answers as told: a sink's far end.
 * `port`: listen there (a sink that was down comes up); default a free port.
 */
export async function startReceiver(port = 0): Promise<Receiver> {
  const requests: ReceivedRequest[] = []
  let reply: (request: ReceivedRequest, index: number) => Reply = () => ({ status: 200, body: 'ok' })
  const server = createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const received: ReceivedRequest = {
        method: request.method ?? '',
        path: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
      }
      requests.push(received)
      const answer = reply(received, requests.length - 1)
      if (answer === 'hang') return
      response.writeHead(answer.status, answer.headers ?? {})
      response.end(answer.body ?? '')
    })
  })
  servers.add(server)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => resolve())
  })
  const bound = (server.address() as AddressInfo).port
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    requests,
    respond(next) {
      reply = next
    },
    close: () => closeServer(server),
  }
}

/** A loopback port nothing listens on (a sink that is down: connection refused). */
export async function freePort(): Promise<number> {
  const receiver = await startReceiver()
  await receiver.close()
  return receiver.port
}

/** Waits until `condition` holds, polling; fails after `timeoutMs` with `what`. Never asserts on time. */
export async function waitFor(condition: () => boolean, what: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
}

/** The idempotency keys of the requests, in arrival order. */
export function keysOf(requests: readonly ReceivedRequest[]): string[] {
  return requests.map((request) => String(request.headers['idempotency-key']))
}
