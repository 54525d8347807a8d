import type { ServerResponse } from 'node:http'
import type { Duplex } from 'node:stream'
import type { ControlClientErrorReason, ControlServerLogger } from '../types.js'

/**
 * The server's account of what clients break: requests aborted halfway, refused by the HTTP
 * parser, or too slow. Each is counted once (`onClientError`) and logged at debug only: a client
 * (or a scanner) that misbehaves on purpose cannot flood the error log.
 */
export type ClientErrors = {
  /** A request is being answered on `socket` by `outgoing` (until its `finish` or `close`). */
  begin(socket: Duplex, outgoing: ServerResponse): void
  end(socket: Duplex): void
  /** What the HTTP layer saw go wrong on the socket of a request being answered, if anything. */
  faultOf(socket: Duplex): ControlClientErrorReason | undefined
  /** Counts one client error and logs it at debug. */
  record(reason: ControlClientErrorReason, fields: Record<string, unknown>): void
  /** The server's `clientError` listener (Node's own answer to it, plus the count). */
  onSocketError(error: NodeJS.ErrnoException, socket: Duplex): void
}

/** What Node answers a request its parser refuses, by the parser's code (400 otherwise). */
const refusals: Readonly<Record<string, string>> = {
  HPE_HEADER_OVERFLOW: '431 Request Header Fields Too Large',
  HPE_CHUNK_EXTENSIONS_OVERFLOW: '413 Payload Too Large',
  ERR_HTTP_REQUEST_TIMEOUT: '408 Request Timeout',
}

/**
 * The reason a socket error counts as, or undefined for a connection reset (a client closing an
 * idle keep-alive connection is no error; one reset mid-request is counted by the request itself).
 */
function reasonOf(error: NodeJS.ErrnoException): ControlClientErrorReason | undefined {
  if (error.code === 'ECONNRESET' || error.code === 'EPIPE') return undefined
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return 'timeout'
  // The connection ended inside a request (its head or its body): the client gave up halfway.
  if (error.code === 'HPE_INVALID_EOF_STATE') return 'aborted'
  return 'malformed'
}

/**
 * @example
 * const clientErrors = createClientErrors({ logger, onClientError: (reason) => metrics.recordControlClientError(reason) })
 * server.on('clientError', clientErrors.onSocketError)
 */
export function createClientErrors(parameters: {
  logger: ControlServerLogger | undefined
  onClientError: ((reason: ControlClientErrorReason) => void) | undefined
}): ClientErrors {
  const { logger, onClientError } = parameters
  /** The response being written on each socket that has a request in flight. */
  const answering = new WeakMap<Duplex, ServerResponse>()
  /** What went wrong on such a socket: the request counts it once, with its method and path. */
  const faults = new WeakMap<Duplex, ControlClientErrorReason>()
  const record = (reason: ControlClientErrorReason, fields: Record<string, unknown>) => {
    onClientError?.(reason)
    logger?.debug?.({ ...fields, reason }, 'control API: client error')
  }
  return {
    begin: (socket, outgoing) => {
      answering.set(socket, outgoing)
      faults.delete(socket)
    },
    end: (socket) => {
      answering.delete(socket)
    },
    faultOf: (socket) => faults.get(socket),
    record,
    onSocketError(error, socket) {
      const reason = reasonOf(error)
      const outgoing = answering.get(socket)
      if (reason !== undefined) {
        if (outgoing) faults.set(socket, reason)
        else record(reason, { code: error.code })
      }
      // As Node answers when no listener is set: a status line, unless an answer has begun.
      if (reason !== undefined && socket.writable && !outgoing?.headersSent)
        socket.write(
          `HTTP/1.1 ${refusals[error.code ?? ''] ?? '400 Bad Request'}\r\nConnection: close\r\n\r\n`,
        )
      socket.destroy()
    },
  }
}
