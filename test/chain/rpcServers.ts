import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'

// Loopback HTTP servers in front of (or instead of) a JSON-RPC node, for what a real node cannot be
// made to do on demand: count connections and requests, or fail every request.

export type RpcServer = {
  url: string
  /** JSON-RPC methods received, in order (one entry per request in a batch). */
  methods: string[]
  /** TCP connections accepted. */
  connections: () => number
  /** HTTP requests received (a batch is one). */
  requests: () => number
  /** Most requests being answered at the same moment. */
  peakInFlight: () => number
  close: () => Promise<void>
}

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`
}

async function bodyOf(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

function recordMethods(body: string, methods: string[]) {
  try {
    const parsed = JSON.parse(body) as { method: string } | { method: string }[]
    for (const call of Array.isArray(parsed) ? parsed : [parsed]) methods.push(call.method)
  } catch {
    methods.push('(unparsable)')
  }
}

function serve(server: Server, methods: string[]): Promise<RpcServer> {
  let connections = 0
  let requests = 0
  let inFlight = 0
  let peak = 0
  server.on('connection', () => {
    connections += 1
  })
  server.on('request', (_request, response) => {
    requests += 1
    inFlight += 1
    peak = Math.max(peak, inFlight)
    response.on('close', () => {
      inFlight -= 1
    })
  })
  return listen(server).then((url) => ({
    url,
    methods,
    connections: () => connections,
    requests: () => requests,
    peakInFlight: () => peak,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }))
}

/** Sends `body` to the real node at `target` and answers with what it answered. */
async function forward(target: string, body: string, response: ServerResponse): Promise<void> {
  const upstream = await fetch(target, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  })
  response.writeHead(upstream.status, { 'content-type': 'application/json' })
  response.end(await upstream.text())
}

/** Answers 200 with `value` as JSON, as a node does (JSON-RPC errors included). */
function answer(response: ServerResponse, value: unknown): void {
  response.writeHead(200, { 'content-type': 'application/json' })
  response.end(JSON.stringify(value))
}

/** Forwards every request to the real node at `target` and counts connections and methods. */
export function countingProxy(target: string): Promise<RpcServer> {
  const methods: string[] = []
  const server = createServer(async (request, response) => {
    const body = await bodyOf(request)
    recordMethods(body, methods)
    await forward(target, body, response)
  })
  return serve(server, methods)
}

/** FAULT (named mock): a node that answers every request with HTTP 503, as an overloaded provider does. */
export function failingRpc(): Promise<RpcServer> {
  const methods: string[] = []
  const server = createServer(async (request, response) => {
    recordMethods(await bodyOf(request), methods)
    response.writeHead(503, { 'content-type': 'text/plain' })
    response.end('service unavailable')
  })
  return serve(server, methods)
}

/**
 * FAULT (named mock): forwards every request to the real node at `target`, except single requests
 * calling one of `refused`, which it answers with JSON-RPC error -32601 (method not found), as a
 * node without that method does. Records methods like {@link countingProxy}.
 */
export function refusingProxy(target: string, refused: readonly string[]): Promise<RpcServer> {
  const methods: string[] = []
  const server = createServer(async (request, response) => {
    const body = await bodyOf(request)
    recordMethods(body, methods)
    const parsed = JSON.parse(body) as { id?: unknown; method?: string } | unknown[]
    if (!Array.isArray(parsed) && parsed.method !== undefined && refused.includes(parsed.method)) {
      answer(response, {
        jsonrpc: '2.0',
        id: parsed.id ?? null,
        error: { code: -32601, message: `the method ${parsed.method} does not exist/is not available` },
      })
      return
    }
    await forward(target, body, response)
  })
  return serve(server, methods)
}

/**
 * FAULT (named mock): a node without JSON-RPC batches. It forwards single calls to the real node at
 * `target` and answers every batch with one JSON-RPC error object, as such nodes do.
 */
export function batchRefusingProxy(target: string): Promise<RpcServer> {
  const methods: string[] = []
  const server = createServer(async (request, response) => {
    const body = await bodyOf(request)
    recordMethods(body, methods)
    if (body.trimStart().startsWith('[')) {
      answer(response, {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'batch requests are not supported' },
      })
      return
    }
    await forward(target, body, response)
  })
  return serve(server, methods)
}
