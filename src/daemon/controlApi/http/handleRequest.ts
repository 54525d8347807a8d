import { randomUUID } from 'node:crypto'
import type { IncomingMessage, ServerResponse } from 'node:http'
import { ControlApiError } from '../errors.js'
import type {
  ControlClientErrorReason,
  ControlReply,
  ControlServerLogger,
  ControlStreamReply,
} from '../types.js'
import { authenticateRequest, carriesCredentials } from './authenticateRequest.js'
import type { ClientErrors } from './clientErrors.js'
import type { DashboardSessions } from './dashboardSessions.js'
import type { RouteMatch } from './matchRoute.js'
import { readJsonBody } from './readJsonBody.js'
import { sendReply } from './sendReply.js'
import { sendStream } from './sendStream.js'

/** What answering a request needs of the server. */
export type RequestHandlerContext = {
  match: (method: string, path: string) => RouteMatch
  /** The `/v1` routes as `METHOD /path, …`, named in a 404 to a request with the token. */
  routeList: string
  bearerToken: string | undefined
  sessions: DashboardSessions | undefined
  maxBodyBytes: number
  logger: ControlServerLogger | undefined
  /** Where requests the client aborted or broke are counted (never logged above debug). */
  clientErrors: ClientErrors
  /** Aborted when the server closes: ends the open streams. */
  streamsEnd: AbortSignal
  /** True once close() began: replies then close their connection. */
  closing: () => boolean
  closeIdleConnections: () => void
}

/** One request's line: its id, method and target split into path and query. */
type RequestLine = {
  requestId: string
  method: string
  path: string
  query: string
  /** Under `/v1`: authenticated, never cached, logged. */
  isApi: boolean
}

/**
 * The server's request listener: authenticates `/v1`, routes, runs the handler, sends its reply
 * (or stream) with `X-Request-Id`, and logs it. Every error becomes a JSON error reply; an
 * unexpected one a 500 that leaks nothing and is logged. A request the client broke (its body cut
 * short, the connection closed before the answer) is the client's error: counted, logged at debug.
 *
 * @example
 * const server = createServer(createRequestHandler({ match, routeList, bearerToken, sessions, maxBodyBytes, logger, clientErrors, streamsEnd, closing, closeIdleConnections }))
 */
export function createRequestHandler(context: RequestHandlerContext) {
  const handle = async (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const startedAt = performance.now()
    const line = readRequestLine(incoming)
    const { socket } = incoming
    context.clientErrors.begin(socket, outgoing)
    const controller = new AbortController()
    outgoing.once('close', () => {
      context.clientErrors.end(socket)
      if (!outgoing.writableFinished) controller.abort(new Error('the client closed the connection'))
    })
    outgoing.once('finish', () => context.clientErrors.end(socket))
    const { reply, clientError } = await answer(context, incoming, line, controller.signal)
    await send(context, outgoing, reply, line, controller.signal)
    const fields = {
      requestId: line.requestId,
      method: line.method,
      path: shortPath(line.path),
      status: reply.status,
      durationMs: Math.round(performance.now() - startedAt),
    }
    // The HTTP layer's word first (a timeout is no mere abort), then the request's own.
    const fault =
      context.clientErrors.faultOf(socket) ??
      clientError ??
      (controller.signal.aborted ? ('aborted' as const) : undefined)
    if (fault !== undefined) context.clientErrors.record(fault, fields)
    else if (line.isApi || reply.status >= 500)
      context.logger?.[reply.status >= 500 ? 'warn' : 'info'](fields, 'control API request')
  }
  return (incoming: IncomingMessage, outgoing: ServerResponse) => {
    handle(incoming, outgoing).catch((error: unknown) => {
      context.logger?.error({ err: error }, 'control API: failed to answer a request')
      if (!outgoing.headersSent) outgoing.writeHead(500)
      outgoing.end()
    })
  }
}

function readRequestLine(incoming: IncomingMessage): RequestLine {
  const method = incoming.method ?? 'GET'
  const target = incoming.url ?? '/'
  const queryAt = target.indexOf('?')
  const path = queryAt === -1 ? target : target.slice(0, queryAt)
  return {
    requestId: randomUUID(),
    method,
    path,
    query: queryAt === -1 ? '' : target.slice(queryAt + 1),
    isApi: path === '/v1' || path.startsWith('/v1/'),
  }
}

/** The longest part of a path a reply or a log line repeats. */
const shownPathLength = 120

/** A path as a reply or a log line repeats it: at most {@link shownPathLength} characters. */
function shortPath(path: string): string {
  return path.length > shownPathLength ? `${path.slice(0, shownPathLength)}…` : path
}

/**
 * The route's reply, or the error reply of what went wrong on the way; `clientError` when the
 * client broke the request (its body cut short, or gone before the handler finished).
 */
async function answer(
  context: RequestHandlerContext,
  incoming: IncomingMessage,
  line: RequestLine,
  signal: AbortSignal,
): Promise<{ reply: ControlReply | ControlStreamReply; clientError?: ControlClientErrorReason | undefined }> {
  const { method, path, requestId } = line
  // The token, or a live session (no token configured: everyone); /v1 is refused without below.
  const authenticated =
    context.bearerToken === undefined ||
    carriesCredentials({
      headers: incoming.headers,
      bearerToken: context.bearerToken,
      sessions: context.sessions,
    })
  try {
    if (!path.startsWith('/'))
      throw new ControlApiError({
        status: 400,
        code: 'BAD_REQUEST',
        message: 'The request target must be a path starting with "/".',
      })
    if (line.isApi && context.bearerToken !== undefined)
      authenticateRequest({
        method,
        headers: incoming.headers,
        bearerToken: context.bearerToken,
        sessions: context.sessions,
      })
    const found = context.match(method, path)
    if (found.kind === 'notFound')
      throw new ControlApiError({
        status: 404,
        code: 'NOT_FOUND',
        // Without the token, nothing about the routes (nor the path back): only where to look.
        message: authenticated
          ? `There is no route ${method} ${shortPath(path)}: the control API serves ${context.routeList} (described in GET /v1/openapi.json).`
          : 'There is no such route: the control API is described in GET /v1/openapi.json (with the token).',
      })
    if (found.kind === 'methodNotAllowed')
      throw new ControlApiError({
        status: 405,
        code: 'METHOD_NOT_ALLOWED',
        message: `${shortPath(path)} does not accept ${method}: use ${found.allow.join(' or ')}.`,
        headers: { allow: found.allow.join(', ') },
      })
    const reply = await found.route.handle({
      method,
      path,
      query: new URLSearchParams(line.query),
      headers: incoming.headers,
      params: found.params,
      readJson: () => readJsonBody(incoming, context.maxBodyBytes),
      signal,
      requestId,
      authenticated,
    })
    return { reply }
  } catch (error) {
    return errorReply(error, requestId, signal, context.logger)
  }
}

/** Sends the reply or runs the stream, with the server's own headers. */
async function send(
  context: RequestHandlerContext,
  outgoing: ServerResponse,
  reply: ControlReply | ControlStreamReply,
  line: RequestLine,
  signal: AbortSignal,
) {
  const serverHeaders: Record<string, string> = { 'x-request-id': line.requestId }
  if (line.isApi) serverHeaders['cache-control'] = 'no-store'
  if (context.closing()) serverHeaders.connection = 'close'
  outgoing.once('finish', () => {
    // A keep-alive socket that became idle after close() began would hold the server open.
    if (context.closing()) setImmediate(() => context.closeIdleConnections())
  })
  if ('stream' in reply)
    await sendStream(outgoing, reply, serverHeaders, AbortSignal.any([signal, context.streamsEnd]))
  else sendReply(outgoing, reply, serverHeaders)
}

function errorReply(
  error: unknown,
  requestId: string,
  signal: AbortSignal,
  logger: ControlServerLogger | undefined,
): { reply: ControlReply; clientError?: ControlClientErrorReason | undefined } {
  if (error instanceof ControlApiError)
    return {
      reply: { status: error.status, headers: error.headers, body: error.body() },
      clientError: error.clientError,
    }
  // The client went away and the handler stopped with it: the client's doing, not a failure here.
  if (signal.aborted)
    return {
      reply: {
        status: 400,
        body: {
          code: 'BAD_REQUEST',
          message: 'The connection closed before the answer: send the request again.',
        },
      },
      clientError: 'aborted',
    }
  logger?.error({ requestId, err: error }, 'control API: unexpected error')
  return {
    reply: {
      status: 500,
      body: {
        code: 'INTERNAL',
        message: `The control API failed on this request (request id ${requestId}): the daemon's log has the cause; retry, and report it if it happens again.`,
      },
    },
  }
}
