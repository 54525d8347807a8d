import { type RequestDescription, ServiceTransportError } from './errors.js'

/**
 * A connection that cannot succeed by trying again soon: nothing listens on the port (`refused`),
 * the host name does not resolve (`not-found`), or fetch refuses the port itself (`bad-port`:
 * undici blocks the ports browsers block, such as 9 or 6000). A timeout, a reset or a temporary
 * DNS failure (EAI_AGAIN) is not one of them: those are worth a retry.
 */
export type PermanentConnectionFailure = {
  kind: 'refused' | 'not-found' | 'bad-port'
  /** The error code seen: ECONNREFUSED, ENOTFOUND, or `bad port` (undici's message, it has no code). */
  code: string
  /** The host name that did not resolve (not-found only, when the error names it). */
  host?: string | undefined
}

const kindOfCode: Record<string, PermanentConnectionFailure['kind']> = {
  ECONNREFUSED: 'refused',
  ENOTFOUND: 'not-found',
}

/**
 * The permanent connection failure behind `error`, or undefined. Looks through `cause` chains and
 * the `errors` of an AggregateError (Node tries each address of a host name, e.g. ::1 and
 * 127.0.0.1 for localhost, and refuses with one error per address), so it finds the system error
 * under fetch's `TypeError: fetch failed`, viem's `HttpRequestError` or stockroute's own errors.
 *
 * @example
 * await fetch('http://127.0.0.1:1').catch(permanentConnectionFailureOf) // { kind: 'refused', code: 'ECONNREFUSED' }
 */
export function permanentConnectionFailureOf(error: unknown): PermanentConnectionFailure | undefined {
  const pending: unknown[] = [error]
  for (let visited = 0; pending.length > 0 && visited < 32; visited += 1) {
    const current = pending.shift()
    if (typeof current !== 'object' || current === null) continue
    const { code, hostname, cause, errors, message } = current as {
      code?: unknown
      hostname?: unknown
      cause?: unknown
      errors?: unknown
      message?: unknown
    }
    if (message === 'bad port') return { kind: 'bad-port', code: 'bad port' }
    const kind = typeof code === 'string' ? kindOfCode[code] : undefined
    if (kind && typeof code === 'string')
      return { kind, code, ...(typeof hostname === 'string' ? { host: hostname } : {}) }
    if (Array.isArray(errors)) pending.push(...errors)
    if (cause !== undefined) pending.push(cause)
  }
  return undefined
}

/**
 * One line saying why nothing could be reached at `url`, for a permanent failure.
 *
 * @example
 * describeConnectionFailure('http://127.0.0.1:8545', { kind: 'refused', code: 'ECONNREFUSED' })
 * // 'nothing listens on http://127.0.0.1:8545 (connection refused)'
 */
export function describeConnectionFailure(url: string, failure: PermanentConnectionFailure): string {
  if (failure.kind === 'refused') return `nothing listens on ${url} (connection refused)`
  if (failure.kind === 'bad-port')
    return `fetch refuses the port of ${url} (a port browsers block, such as 9 or 6000)`
  return `the host of ${url}${failure.host ? ` (${failure.host})` : ''} is not found (DNS ${failure.code})`
}

/** What to do about `failure` of the URL in the config field `field` (e.g. service.baseUrl). */
export function connectionFailureFix(
  failure: PermanentConnectionFailure,
  field: string,
  what: string,
): string {
  if (failure.kind === 'refused') return `start ${what}, or fix ${field}`
  if (failure.kind === 'bad-port') return `use another port in ${field}`
  return `fix ${field}, or this machine's DNS`
}

/**
 * The service could not be reached and trying again would not help: nothing listens on its port,
 * or its host name does not resolve. Thrown at the first attempt, never after retries. A
 * {@link ServiceTransportError}, so code handling unreachable services handles it too.
 */
export class ServiceUnreachableError extends ServiceTransportError {
  override name = 'ServiceUnreachableError'
  override readonly shortMessage: string
  readonly failure: PermanentConnectionFailure

  constructor(
    request: RequestDescription,
    baseUrl: string,
    failure: PermanentConnectionFailure,
    cause: unknown,
  ) {
    super(request, baseUrl, cause)
    const fix = connectionFailureFix(failure, 'service.baseUrl', 'the service')
    this.failure = failure
    this.shortMessage = `${request.method} ${request.path}: ${describeConnectionFailure(baseUrl, failure)}; ${fix}`
    this.message = this.shortMessage
  }
}
