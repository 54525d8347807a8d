import { printable } from '@stockroute/client/domain/printable.js'
import type { z } from 'zod'
import { isPidAlive } from '../../daemon/runtimeFile.js'
import { DaemonClientError } from './daemonClientError.js'

/** How long a control API call may take before the CLI gives up on it, ms. */
export const defaultDaemonTimeoutMs = 10_000

/** A query string's parameters; undefined ones are left out. */
export type DaemonQuery = Readonly<Record<string, string | number | undefined>>

/** The options of one call. */
export type DaemonRequestOptions<T> = {
  query?: DaemonQuery | undefined
  /** Sent as JSON. */
  body?: unknown
  headers?: Readonly<Record<string, string>> | undefined
  /** The reply body's schema: the reply is validated at this edge. */
  schema: z.ZodType<T>
  signal?: AbortSignal | undefined
  timeoutMs?: number | undefined
}

/** The running daemon's control API, as the CLI calls it. */
export type DaemonClient = {
  pid: number
  url: string
  /** Names the path a command took, e.g. `via daemon pid 123 at http://127.0.0.1:41234`. */
  via: string
  /** One JSON call; throws {@link DaemonClientError} with what to do. */
  request<T>(method: 'GET' | 'POST', path: string, options: DaemonRequestOptions<T>): Promise<T>
  /**
   * Opens a long-lived response (the event stream): no timeout once the headers have come, the
   * same errors as `request` before.
   */
  openStream(
    path: string,
    options: {
      query?: DaemonQuery | undefined
      headers?: Readonly<Record<string, string>> | undefined
      signal?: AbortSignal | undefined
    },
  ): Promise<Response>
}

/**
 * A client of the control API of the daemon `pid` at `url`, authorized with `token`. Errors say
 * what happened and what to do: not answering (and whether the process is still alive), a
 * timeout, a token mismatch (401), the API's own message and field problems for any other 4xx.
 *
 * @example
 * const client = createDaemonClient({ pid: 123, url: 'http://127.0.0.1:41234', token })
 * const state = await client.request('GET', '/v1/kill-switch', { schema: killSwitchViewSchema })
 */
export function createDaemonClient(parameters: {
  pid: number
  url: string
  token: string
  /** Where the token came from, for the 401 hint. */
  tokenFrom?: string | undefined
  timeoutMs?: number | undefined
}): DaemonClient {
  const { pid, url, token } = parameters
  const base = url.replace(/\/+$/, '')
  const via = `via daemon pid ${pid} at ${base}`

  async function send(
    method: 'GET' | 'POST',
    path: string,
    options: {
      query?: DaemonQuery | undefined
      body?: unknown
      headers?: Readonly<Record<string, string>> | undefined
      signal?: AbortSignal | undefined
      timeoutMs?: number | undefined
    },
  ): Promise<Response> {
    const search = new URLSearchParams()
    for (const [name, value] of Object.entries(options.query ?? {}))
      if (value !== undefined) search.set(name, String(value))
    const target = `${base}${path}${search.size > 0 ? `?${search}` : ''}`
    const timeoutMs = options.timeoutMs ?? parameters.timeoutMs ?? defaultDaemonTimeoutMs
    const timeout = AbortSignal.timeout(timeoutMs)
    const signal = options.signal ? AbortSignal.any([options.signal, timeout]) : timeout
    const headers: Record<string, string> = { authorization: `Bearer ${token}`, ...options.headers }
    if (options.body !== undefined) headers['content-type'] = 'application/json'
    let response: Response
    try {
      response = await fetch(target, {
        method,
        headers,
        ...(options.body === undefined ? {} : { body: JSON.stringify(options.body) }),
        signal,
      })
    } catch (error) {
      if (options.signal?.aborted) throw options.signal.reason ?? error
      const alive = isPidAlive(pid)
      const state = alive
        ? 'its process still runs: it may be starting, stopping or overloaded; retry in a moment, or read its log'
        : 'its process is gone: run the command again (it then uses the ledger directly), or start the daemon again'
      if (timeout.aborted)
        throw new DaemonClientError({
          code: 'DAEMON_TIMEOUT',
          shortMessage: `The daemon (pid ${pid}) at ${base} did not answer ${method} ${path} within ${timeoutMs} ms: ${state}.`,
          details: { pid, url: base, alive },
          cause: error,
        })
      throw new DaemonClientError({
        code: 'DAEMON_NOT_ANSWERING',
        shortMessage: `The daemon (pid ${pid}) at ${base} does not answer (${causeOf(error)}): ${state}.`,
        details: { pid, url: base, alive },
        cause: error,
      })
    }
    if (response.ok) return response
    throw await replyError(response, { method, path, pid, base, tokenFrom: parameters.tokenFrom })
  }

  return {
    pid,
    url: base,
    via,
    async request(method, path, options) {
      const response = await send(method, path, options)
      let json: unknown
      try {
        json = await response.json()
      } catch (error) {
        throw badReply(`${method} ${path}`, base, `its body is not JSON (${causeOf(error)})`)
      }
      const parsed = options.schema.safeParse(json)
      if (!parsed.success)
        throw badReply(
          `${method} ${path}`,
          base,
          parsed.error.issues
            .slice(0, 3)
            .map((issue) => `${issue.path.join('.') || '(body)'}: ${issue.message}`)
            .join('; '),
        )
      return parsed.data
    },
    openStream(path, options) {
      // No timeout: the stream may stay quiet for long (a refused connection fails at once on loopback).
      return send('GET', path, {
        query: options.query,
        headers: { accept: 'text/event-stream', ...options.headers },
        signal: options.signal,
        timeoutMs: 2_147_000_000,
      })
    },
  }
}

function causeOf(error: unknown): string {
  const cause = (error as { cause?: { code?: string; message?: string } }).cause
  return cause?.code ?? cause?.message ?? (error as Error).message ?? String(error)
}

function badReply(call: string, base: string, problem: string): DaemonClientError {
  return new DaemonClientError({
    code: 'DAEMON_BAD_REPLY',
    shortMessage: `The daemon at ${base} answered ${call} with a reply the CLI does not understand (${problem}): are the CLI and the daemon the same stockroute version? Restart the daemon after an upgrade.`,
    details: { url: base },
  })
}

/** The {@link DaemonClientError} of a non-2xx reply, from its `{code, message, details}` body. */
async function replyError(
  response: Response,
  context: { method: string; path: string; pid: number; base: string; tokenFrom: string | undefined },
): Promise<DaemonClientError> {
  const text = await response.text().catch(() => '')
  let body: { code?: unknown; message?: unknown; details?: unknown } = {}
  try {
    const json: unknown = JSON.parse(text)
    if (typeof json === 'object' && json !== null) body = json
  } catch {
    // Not JSON: the status says enough.
  }
  const apiCode = typeof body.code === 'string' ? body.code : undefined
  // The daemon's words in the CLI's message, shown as data (`printable`); `apiMessage` keeps them exact.
  const apiMessage = printable(typeof body.message === 'string' ? body.message : text.slice(0, 300))
  const problems = Array.isArray(body.details)
    ? body.details.flatMap((problem: unknown) => {
        const { field, problem: what } = (problem ?? {}) as { field?: unknown; problem?: unknown }
        return typeof field === 'string' && typeof what === 'string'
          ? [`  ${printable(field)}: ${printable(what)}`]
          : []
      })
    : []
  const common = {
    status: response.status,
    apiCode,
    apiMessage: typeof body.message === 'string' ? body.message : undefined,
    details: { status: response.status, pid: context.pid, url: context.base, body },
  }
  if (response.status === 401)
    return new DaemonClientError({
      ...common,
      code: 'DAEMON_UNAUTHORIZED',
      shortMessage: `The daemon (pid ${context.pid}) refused the control token${context.tokenFrom ? ` from ${context.tokenFrom}` : ''} (401 ${apiMessage}): the token is not the one it started with. With api.tokenEnv, give the CLI the daemon's value of that variable; a generated token file is rewritten at each daemon start, so run the CLI as the daemon's user on the same data folder.`,
    })
  const call = `${context.method} ${context.path}`
  if (response.status >= 500)
    return new DaemonClientError({
      ...common,
      code: 'DAEMON_FAILED',
      shortMessage: `The daemon (pid ${context.pid}) failed on ${call} (${response.status}${apiCode ? ` ${apiCode}` : ''}): ${apiMessage || 'no message'}. Read its log; retry once it is fixed.`,
      metaMessages: problems,
    })
  return new DaemonClientError({
    ...common,
    code: 'DAEMON_REFUSED',
    shortMessage: apiMessage
      ? `The daemon refused ${call} (${response.status}${apiCode ? ` ${apiCode}` : ''}): ${apiMessage}`
      : `The daemon refused ${call} (${response.status}).`,
    metaMessages: problems,
  })
}
