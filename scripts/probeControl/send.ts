// How probe:control talks to the daemon: raw HTTP (node:http, so that a path is sent exactly as
// written, `..` and `%2e` included, which fetch would normalize), raw sockets for what HTTP clients
// cannot send (a body cut short), each request counted against the run's budget and bounded by its
// deadline.
import { request as httpRequest, type IncomingHttpHeaders } from 'node:http'
import { connect } from 'node:net'
import type { ProbeStatus } from './report.js'

/** The requests a run may still send and the time it may still take. */
export type ProbeBudget = {
  /** Counts one request; throws once the run's maximum is reached. */
  take(): void
  readonly sent: number
  /** Aborts when the run's time limit is reached. */
  readonly signal: AbortSignal
}

/**
 * A budget of `maxRequests` requests and `timeLimitMs` of time.
 *
 * @example
 * const budget = createProbeBudget({ maxRequests: 3000, timeLimitMs: 180_000 })
 */
export function createProbeBudget(limits: { maxRequests: number; timeLimitMs: number }): ProbeBudget {
  let sent = 0
  const signal = AbortSignal.timeout(limits.timeLimitMs)
  return {
    take() {
      if (sent >= limits.maxRequests)
        throw new Error(`the probe's budget of ${limits.maxRequests} requests is spent: it stops here`)
      signal.throwIfAborted()
      sent += 1
    },
    get sent() {
      return sent
    },
    signal,
  }
}

/** A reply as the probe keeps it: the status, the headers, the start of the body. */
export type ProbeReply = { status: ProbeStatus; headers: IncomingHttpHeaders; body: string; ms: number }

export type ProbeRequest = {
  method: string
  /** Sent exactly as written (with its query). */
  path: string
  headers?: Record<string, string> | undefined
  body?: string | Buffer | undefined
  /** Per request, ms (default 10 000, and never past the run's time limit). */
  timeoutMs?: number | undefined
}

/** The most of a reply body kept (enough to see a leaked file or an error code). */
const bodyKept = 64 * 1024

/**
 * Sends one request to `base` and resolves with its reply; never rejects for what the server does
 * (a reset or timeout is status `error`), only when the budget is spent.
 */
export function send(base: string, budget: ProbeBudget, probe: ProbeRequest): Promise<ProbeReply> {
  budget.take()
  const { hostname, port } = new URL(base)
  const started = performance.now()
  const signal = AbortSignal.any([budget.signal, AbortSignal.timeout(probe.timeoutMs ?? 10_000)])
  return new Promise((resolve) => {
    let settled = false
    const done = (reply: Omit<ProbeReply, 'ms'>) => {
      if (settled) return
      settled = true
      resolve({ ...reply, ms: performance.now() - started })
    }
    const body = probe.body === undefined ? undefined : Buffer.from(probe.body)
    let outgoing: ReturnType<typeof httpRequest>
    try {
      outgoing = httpRequest(
        {
          host: hostname.replace(/^\[|\]$/g, ''),
          port,
          method: probe.method,
          path: probe.path,
          headers: {
            ...(body === undefined ? {} : { 'content-length': String(body.length) }),
            ...probe.headers,
          },
          agent: false,
          signal,
        },
        (incoming) => {
          let text = ''
          incoming.setEncoding('utf8')
          incoming.on('data', (chunk: string) => {
            if (text.length < bodyKept) text += chunk
          })
          incoming.on('end', () =>
            done({ status: incoming.statusCode ?? 'error', headers: incoming.headers, body: text }),
          )
          incoming.on('error', () =>
            done({ status: incoming.statusCode ?? 'error', headers: incoming.headers, body: text }),
          )
        },
      )
    } catch {
      // A header Node refuses to write (a control character): nothing was sent.
      done({ status: 'error', headers: {}, body: '' })
      return
    }
    outgoing.on('error', () => done({ status: 'error', headers: {}, body: '' }))
    outgoing.end(body)
  })
}

/** An event stream opened by {@link openStream}: its status, and how to close it. */
export type OpenedStream = { status: ProbeStatus; body: string; close(): void }

/**
 * Opens `GET /v1/events` with `headers` and resolves once the status is in: a 200 stays open (its
 * events are read and dropped) until `close()`, any other status with its body.
 */
export function openStream(
  base: string,
  budget: ProbeBudget,
  headers: Record<string, string>,
): Promise<OpenedStream> {
  budget.take()
  const { hostname, port } = new URL(base)
  const controller = new AbortController()
  const signal = AbortSignal.any([budget.signal, controller.signal])
  return new Promise((resolve) => {
    let settled = false
    const close = () => controller.abort()
    const done = (stream: OpenedStream) => {
      if (settled) return
      settled = true
      resolve(stream)
    }
    const timer = setTimeout(() => {
      close()
      done({ status: 'error', body: 'no status within 10 s', close })
    }, 10_000)
    const outgoing = httpRequest(
      {
        host: hostname.replace(/^\[|\]$/g, ''),
        port,
        method: 'GET',
        path: '/v1/events',
        headers,
        agent: false,
        signal,
      },
      (incoming) => {
        clearTimeout(timer)
        incoming.on('error', () => {})
        if (incoming.statusCode === 200) {
          incoming.resume()
          done({ status: 200, body: '', close })
          return
        }
        let text = ''
        incoming.setEncoding('utf8')
        incoming.on('data', (chunk: string) => {
          text += chunk
        })
        incoming.on('end', () => done({ status: incoming.statusCode ?? 'error', body: text, close }))
      },
    )
    outgoing.on('error', () => {
      clearTimeout(timer)
      done({ status: 'error', body: '', close })
    })
    outgoing.end()
  })
}

/**
 * Sends `head` and then `partOfBody` over a raw connection and half-closes it, as a client that
 * gives up in the middle of its request; resolves with the status the server answered, `no reply`
 * when it only closed, `error` on a reset.
 */
export function sendCutShort(
  base: string,
  budget: ProbeBudget,
  head: string,
  partOfBody: string,
): Promise<ProbeStatus> {
  budget.take()
  const { hostname, port } = new URL(base)
  return new Promise((resolve) => {
    const socket = connect(Number(port), hostname.replace(/^\[|\]$/g, ''))
    let answer = ''
    let settled = false
    const done = (status: ProbeStatus) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      socket.destroy()
      resolve(status)
    }
    const timer = setTimeout(() => done(statusOfRawAnswer(answer)), 5_000)
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('latin1')
    })
    socket.once('error', () => done(answer === '' ? 'error' : statusOfRawAnswer(answer)))
    socket.once('close', () => done(statusOfRawAnswer(answer)))
    socket.once('connect', () => {
      socket.write(head)
      socket.end(partOfBody)
    })
  })
}

/**
 * The status of a raw HTTP answer (`HTTP/1.1 400 Bad Request…`), or `no reply` for none.
 *
 * @example
 * statusOfRawAnswer('HTTP/1.1 400 Bad Request\r\n\r\n') // 400
 * statusOfRawAnswer('') // 'no reply'
 */
export function statusOfRawAnswer(answer: string): ProbeStatus {
  const match = /^HTTP\/1\.[01] (\d{3})/.exec(answer)
  return match ? Number(match[1]) : 'no reply'
}
