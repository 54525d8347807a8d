import { StockrouteError } from '../domain/errors.js'

/** One of the reference's three error body shapes, as received. */
export type ServiceErrorBody =
  | { shape: 'code-message-details'; code: number; message: string; details: string }
  | { shape: 'code-message'; code: number; message: string }
  | { shape: 'error'; error: string }
  | { shape: 'unrecognized'; text: string }

export type RequestDescription = { method: string; path: string }

/** The service answered with an error status. `status` and `body` say which and why. */
export class ServiceHttpError extends StockrouteError {
  override name = 'ServiceHttpError'
  constructor(
    readonly status: number,
    readonly body: ServiceErrorBody,
    readonly request: RequestDescription,
    hint: string,
    code = 'SERVICE_HTTP_ERROR',
  ) {
    super({
      code,
      shortMessage: `${request.method} ${request.path} failed with ${status} ${serviceErrorText(body)}: ${hint}`,
      details: { status, body, request },
    })
  }
}

/** 400: the request was wrong; the body says which parameter. Not retried. */
export class ServiceBadRequestError extends ServiceHttpError {
  override name = 'ServiceBadRequestError'
  constructor(status: number, body: ServiceErrorBody, request: RequestDescription) {
    super(
      status,
      body,
      request,
      'fix the request as the message says; retrying the same request will not help',
      'SERVICE_BAD_REQUEST',
    )
  }
}

/** 404: no such ticker, chain, token or route. */
export class ServiceNotFoundError extends ServiceHttpError {
  override name = 'ServiceNotFoundError'
  constructor(status: number, body: ServiceErrorBody, request: RequestDescription) {
    super(
      status,
      body,
      request,
      'check the ticker, exchange and chain id (list them with `stockroute tokens --chain ID`)',
      'SERVICE_NOT_FOUND',
    )
  }
}

/** 401: credentials refused (bad key, bad signature, clock skew, expired or invalid JWT). */
export class ServiceAuthError extends ServiceHttpError {
  override name = 'ServiceAuthError'
  constructor(status: number, body: ServiceErrorBody, request: RequestDescription) {
    super(
      status,
      body,
      request,
      'check STOCKROUTE_API_KEY / STOCKROUTE_API_SECRET and the machine clock, or log in again',
      'SERVICE_UNAUTHORIZED',
    )
  }
}

/** 429: the key exceeded its rate; `retryAfterMs` from the Retry-After header. */
export class ServiceRateLimitError extends ServiceHttpError {
  override name = 'ServiceRateLimitError'
  constructor(
    status: number,
    body: ServiceErrorBody,
    request: RequestDescription,
    readonly retryAfterMs: number,
  ) {
    super(
      status,
      body,
      request,
      `wait ${Math.ceil(retryAfterMs / 1000)} s, or lower the client's requestsPerSecond`,
      'SERVICE_RATE_LIMITED',
    )
  }
}

/** 5xx: the service failed; idempotent reads are retried within their time budget. */
export class ServiceUnavailableError extends ServiceHttpError {
  override name = 'ServiceUnavailableError'
  constructor(status: number, body: ServiceErrorBody, request: RequestDescription) {
    super(status, body, request, 'the service failed; it may work again shortly', 'SERVICE_UNAVAILABLE')
  }
}

/** Login refused: one of the six rules of POST /api/v1/makers/connect. */
export class LoginError extends ServiceHttpError {
  override name = 'LoginError'
  constructor(status: number, body: ServiceErrorBody, request: RequestDescription) {
    super(status, body, request, loginHint(body), 'LOGIN_REFUSED')
  }
}

/** The service could not be reached (connection refused, reset, DNS). */
export class ServiceTransportError extends StockrouteError {
  override name = 'ServiceTransportError'
  constructor(request: RequestDescription, baseUrl: string, cause: unknown) {
    super({
      code: 'SERVICE_UNREACHABLE',
      shortMessage: `${request.method} ${request.path}: could not reach ${baseUrl}: ${(cause as Error)?.message ?? String(cause)}; check service.baseUrl and the network`,
      details: { request, baseUrl },
      cause,
    })
  }
}

/** The call's time budget ran out, or its AbortSignal fired. */
export class ServiceTimeoutError extends StockrouteError {
  override name = 'ServiceTimeoutError'
  constructor(request: RequestDescription, budgetMs: number, attempts: number, cause?: unknown) {
    super({
      code: 'SERVICE_TIMEOUT',
      shortMessage: `${request.method} ${request.path}: no answer within its budget of ${budgetMs} ms after ${attempts} attempt(s)`,
      remedy: 'check that the service is up and answers quickly (`stockroute doctor`), then try again',
      details: { request, budgetMs, attempts },
      cause,
    })
  }
}

/** A reply did not match the documented schema: the service changed, or is not the service. */
export class ServiceResponseError extends StockrouteError {
  override name = 'ServiceResponseError'
  constructor(request: RequestDescription, problem: string, cause?: unknown) {
    super({
      code: 'SERVICE_BAD_RESPONSE',
      shortMessage: `${request.method} ${request.path}: unexpected reply: ${problem}; is service.baseUrl the service, and is this stockroute up to date?`,
      details: { request, problem },
      cause,
    })
  }
}

/** Reads any of the three documented error shapes from a reply body. */
export function parseErrorBody(text: string): ServiceErrorBody {
  try {
    const json = JSON.parse(text) as Record<string, unknown>
    if (typeof json.error === 'string') return { shape: 'error', error: json.error }
    if (typeof json.code === 'number' && typeof json.message === 'string') {
      return typeof json.details === 'string'
        ? { shape: 'code-message-details', code: json.code, message: json.message, details: json.details }
        : { shape: 'code-message', code: json.code, message: json.message }
    }
  } catch {
    // not JSON: kept as text below
  }
  return { shape: 'unrecognized', text: text.slice(0, 500) }
}

/**
 * What the service said in an error reply, whatever its shape (without stockroute's hint).
 *
 * @example
 * serviceErrorText({ shape: 'code-message', code: 400, message: 'Invalid signature' }) // 'Invalid signature'
 */
export function serviceErrorText(body: ServiceErrorBody): string {
  switch (body.shape) {
    case 'error':
      return body.error
    case 'code-message':
      return body.message
    case 'code-message-details':
      return body.details ? `${body.message} (${body.details})` : body.message
    case 'unrecognized':
      return body.text
  }
}

function loginHint(body: ServiceErrorBody): string {
  const message = body.shape === 'code-message' || body.shape === 'code-message-details' ? body.message : ''
  const hints: Record<string, string> = {
    'Invalid signature': 'sign the exact message with personal_sign using the wallet named in it',
    'Invalid message format':
      'the message needs Wallet address, ChainId, Timestamp (YYYY-MM-DDThh:mm:ssZ) and Nonce lines',
    'Timestamp expired':
      "the machine clock is off: correct it, the message's Timestamp must be the current time",
    'Nonce already used': 'use a fresh nonce for each login',
    'Invalid wallet address': 'the wallet address must be a checksummed or lowercase 0x address',
    'Chain ID mismatch': 'chain_id and the message ChainId must be equal and name a chain the service runs',
  }
  return hints[message] ?? 'see the message'
}
