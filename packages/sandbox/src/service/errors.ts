import { StockrouteError } from '@stockroute/client/domain/errors.js'

/** Stable codes of {@link SandboxHttpError}, by HTTP status. */
export type SandboxHttpErrorCode =
  | 'SANDBOX_BAD_REQUEST'
  | 'SANDBOX_UNAUTHORIZED'
  | 'SANDBOX_NOT_FOUND'
  | 'SANDBOX_RATE_LIMITED'
  | 'SANDBOX_HTTP_ERROR'

const codeByStatus: Readonly<Record<number, SandboxHttpErrorCode>> = {
  400: 'SANDBOX_BAD_REQUEST',
  401: 'SANDBOX_UNAUTHORIZED',
  404: 'SANDBOX_NOT_FOUND',
  429: 'SANDBOX_RATE_LIMITED',
}

const remedyByCode: Readonly<Record<SandboxHttpErrorCode, string>> = {
  SANDBOX_BAD_REQUEST: 'fix the request as the body says; the same request fails again',
  SANDBOX_UNAUTHORIZED:
    "sign the request with the sandbox's API key and secret at the current time, or log in again",
  SANDBOX_NOT_FOUND: "check the path, the ticker and the chain id against the sandbox's catalogue",
  SANDBOX_RATE_LIMITED: 'wait for the Retry-After seconds, then send it again',
  SANDBOX_HTTP_ERROR: 'retry; if it persists, read the sandbox log',
}

/**
 * An HTTP failure of the sandbox service, carrying the exact body the reference's error shapes
 * prescribe: `{code, message, details}` (the default, as in the market-quote failure example),
 * `{code, message}` (login), `{error}` (token-address lookup). The body is what the client gets;
 * `code` and `remedy` are for the sandbox's own callers and logs.
 */
export class SandboxHttpError extends StockrouteError {
  override name = 'SandboxHttpError'
  declare readonly code: SandboxHttpErrorCode
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    const code = codeByStatus[status] ?? 'SANDBOX_HTTP_ERROR'
    super({
      code,
      shortMessage:
        typeof body === 'object' && body && 'message' in body ? String(body.message) : `HTTP ${status}`,
      remedy: remedyByCode[code],
      details: { status },
    })
  }
}

/** `{code, message, details}` with `code` equal to the HTTP status. */
export function httpError(
  status: number,
  message: string,
  details = '',
  headers: Record<string, string> = {},
) {
  return new SandboxHttpError(status, { code: status, message, details }, headers)
}

export const badRequest = (details: string) => httpError(400, 'Invalid parameter', details)
export const unauthorized = (message: string, details = '') => httpError(401, message, details)
export const notFound = (details: string) => httpError(404, 'Not found', details)

/** The login endpoint's shape: `{code, message}`. */
export function loginError(message: string) {
  return new SandboxHttpError(400, { code: 400, message })
}

/** The token-address lookup's shape: `{error}`. */
export function tokenAddressError(status: number, error: string) {
  return new SandboxHttpError(status, { error })
}
