/**
 * An HTTP failure of the sandbox service, carrying the exact body the reference's error shapes
 * prescribe: `{code, message, details}` (the default, as in the market-quote failure example),
 * `{code, message}` (login), `{error}` (token-address lookup).
 */
export class SandboxHttpError extends Error {
  override name = 'SandboxHttpError'
  constructor(
    readonly status: number,
    readonly body: unknown,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof body === 'object' && body && 'message' in body ? String(body.message) : `HTTP ${status}`)
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
