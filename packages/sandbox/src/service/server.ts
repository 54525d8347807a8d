import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { rawQueryOf } from '@stockroute/client/domain/apiKeySignature.js'
import { verifyApiKeyRequest } from './auth/apiKeys.js'
import { verifyJwt } from './auth/jwt.js'
import type { SandboxContext } from './contextTypes.js'
import { httpError, SandboxHttpError } from './errors.js'
import type { SandboxRequest } from './request.js'
import type { Caller, Reply, Route } from './route.js'
import { createRouter } from './router.js'

/** Request bodies above this are refused with 413: only login has a body, and it is small. */
const maxBodyBytes = 64 * 1024

/** Rate of JWT-authenticated callers, per wallet, in requests per second. */
const jwtRequestsPerSecond = 50

export type SandboxServiceLogger = { error: (message: string, error: unknown) => void }

export type SandboxHttpServer = {
  url: string
  server: Server
  close: () => Promise<void>
}

/**
 * Serves the route table over HTTP on 127.0.0.1 (port 0: a free one). Every failure becomes one of
 * the reference's error bodies; an unexpected exception is a 500 `{code, message, details}` and is
 * logged, never a crash.
 */
export async function listenSandboxHttp(parameters: {
  context: SandboxContext
  routes: readonly Route[]
  port?: number
  logger?: SandboxServiceLogger
}): Promise<SandboxHttpServer> {
  const { context, routes, port = 0, logger } = parameters
  const match = createRouter(routes)
  const server = createServer({ keepAlive: true, keepAliveTimeout: 30_000 }, (incoming, outgoing) => {
    handle(incoming, outgoing).catch((error: unknown) => {
      logger?.error('sandbox: failed to answer a request', error)
      if (!outgoing.headersSent) outgoing.writeHead(500)
      outgoing.end()
    })
  })

  async function handle(incoming: IncomingMessage, outgoing: ServerResponse) {
    let reply: Reply
    try {
      reply = await dispatch(incoming)
    } catch (error) {
      reply = errorReply(error, logger)
    }
    const body = JSON.stringify(reply.body)
    outgoing.writeHead(reply.status ?? 200, {
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(body),
      date: new Date(context.clock.now()).toUTCString(),
      ...reply.headers,
    })
    outgoing.end(body)
  }

  async function dispatch(incoming: IncomingMessage): Promise<Reply> {
    const url = new URL(incoming.url ?? '/', 'http://sandbox.local')
    const method = incoming.method ?? 'GET'
    const matched = match(method, url.pathname)
    if (matched === 'notFound') throw httpError(404, 'Not found', `no endpoint ${method} ${url.pathname}`)
    if (matched === 'methodNotAllowed')
      throw httpError(405, 'Method not allowed', `${url.pathname} does not accept ${method}`)
    const request: SandboxRequest = {
      method,
      path: url.pathname,
      queryPairs: [...url.searchParams],
      rawQuery: rawQueryOf(incoming.url ?? '/'),
      headers: incoming.headers,
      body: await readBody(incoming),
      params: matched.params,
    }
    const caller = await authenticate(request, matched.route, context)
    enforceRateLimit(caller, context)
    return matched.route.handle(request, context, caller)
  }

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(port, '127.0.0.1', () => resolve())
  })
  const address = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${address.port}`,
    server,
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve())
        server.closeAllConnections()
      }),
  }
}

async function authenticate(request: SandboxRequest, route: Route, context: SandboxContext): Promise<Caller> {
  const now = context.clock.now()
  if (route.auth === 'public') return { kind: 'public' }
  if (route.auth === 'institution') {
    const identity = verifyApiKeyRequest(request, context.credentials, now, false)
    return { kind: 'institution', credential: identity.credential }
  }
  const authorization = request.headers.authorization
  if (authorization?.startsWith('Bearer ')) {
    const claims = await verifyJwt(authorization.slice('Bearer '.length).trim(), context.jwt.secret, now)
    return { kind: 'maker', makerAddress: claims.walletAddress, credential: null }
  }
  const identity = verifyApiKeyRequest(request, context.credentials, now, true)
  return {
    kind: 'maker',
    makerAddress: identity.makerAddress as `0x${string}`,
    credential: identity.credential,
  }
}

function enforceRateLimit(caller: Caller, context: SandboxContext) {
  if (caller.kind === 'public') return
  const [identity, rate] = caller.credential
    ? [`key:${caller.credential.apiKey}`, caller.credential.requestsPerSecond]
    : [`wallet:${caller.kind === 'maker' ? caller.makerAddress : ''}`, jwtRequestsPerSecond]
  const waitMs = context.rateLimiter.take(identity, rate, context.clock.now())
  if (waitMs > 0) {
    const retryAfter = Math.max(1, Math.ceil(waitMs / 1000))
    throw httpError(
      429,
      'Too many requests',
      `rate limit of ${rate} requests per second exceeded; retry after ${retryAfter} s`,
      { 'retry-after': String(retryAfter) },
    )
  }
}

function errorReply(error: unknown, logger?: SandboxServiceLogger): Reply {
  if (error instanceof SandboxHttpError)
    return { status: error.status, body: error.body, headers: error.headers }
  logger?.error('sandbox: unexpected error', error)
  return { status: 500, body: { code: 500, message: 'Internal server error', details: '' } }
}

function readBody(incoming: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    incoming.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > maxBodyBytes) {
        reject(httpError(413, 'Payload too large', `request bodies are limited to ${maxBodyBytes} bytes`))
        incoming.resume()
        return
      }
      chunks.push(chunk)
    })
    incoming.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')))
    incoming.on('error', reject)
  })
}
