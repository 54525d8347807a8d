import type { ServerResponse } from 'node:http'
import type { ControlStreamReply, ControlStreamSink } from '../types.js'

/**
 * Sends a streaming reply: the status and headers at once (the server's own headers, which the
 * reply's override), then runs the reply's `stream` with a sink that waits for `drain` when the
 * socket's buffer is full, and ends the response when the stream returns or throws (the error is
 * rethrown for the server to log). `signal` is the end of the stream: the client gone or the
 * server closing.
 *
 * @example
 * await sendStream(outgoing, { status: 200, stream: async (sink) => sink.write(': hello\n\n') }, {}, signal)
 */
export async function sendStream(
  outgoing: ServerResponse,
  reply: ControlStreamReply,
  serverHeaders: Readonly<Record<string, string>>,
  signal: AbortSignal,
): Promise<void> {
  const headers: Record<string, string> = { ...serverHeaders }
  for (const [name, value] of Object.entries(reply.headers ?? {})) headers[name.toLowerCase()] = value
  outgoing.writeHead(reply.status, headers)
  outgoing.flushHeaders()
  const sink: ControlStreamSink = {
    signal,
    write: (text) =>
      new Promise<void>((resolve) => {
        if (signal.aborted || outgoing.destroyed || outgoing.write(text)) return resolve()
        const done = () => {
          outgoing.off('drain', done)
          signal.removeEventListener('abort', done)
          resolve()
        }
        outgoing.once('drain', done)
        signal.addEventListener('abort', done, { once: true })
      }),
  }
  try {
    await reply.stream(sink)
  } finally {
    if (!outgoing.writableEnded) outgoing.end()
  }
}
