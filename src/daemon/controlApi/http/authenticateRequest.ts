import type { IncomingHttpHeaders } from 'node:http'
import { ControlApiError } from '../errors.js'
import { bearerTokenMatches } from './bearerTokenMatches.js'
import type { DashboardSessions } from './dashboardSessions.js'
import { secretsEqual } from './dashboardSessions.js'

/** Methods that change state: a cookie alone does not authorize them (CSRF), the page's header must come too. */
const readOnlyMethods = new Set(['GET', 'HEAD', 'OPTIONS'])

/**
 * Whether a request carries the control API token, or (no `Authorization` header) the cookie of a
 * live dashboard session: what a route outside `/v1` asks before it says more than liveness.
 *
 * @example
 * carriesCredentials({ headers: incoming.headers, bearerToken, sessions }) // false for anyone else
 */
export function carriesCredentials(parameters: {
  headers: IncomingHttpHeaders
  bearerToken: string
  sessions: DashboardSessions | undefined
}): boolean {
  const { headers, bearerToken, sessions } = parameters
  if (bearerTokenMatches(headers.authorization, bearerToken)) return true
  return headers.authorization === undefined && sessions?.find(headers.cookie) !== undefined
}

/**
 * Lets a `/v1` request through when it carries the bearer token, or (the dashboard) a live session
 * cookie; a state-changing request on a cookie must also send the session's `X-CSRF-Token`, which
 * a cross-site page cannot read. GETs and the event stream (EventSource sends no headers) need only
 * the cookie. Anything else is a 401.
 *
 * @example
 * authenticateRequest({ method: 'POST', headers: incoming.headers, bearerToken, sessions })
 */
export function authenticateRequest(parameters: {
  method: string
  headers: IncomingHttpHeaders
  bearerToken: string
  sessions: DashboardSessions | undefined
}): void {
  const { method, headers, bearerToken, sessions } = parameters
  if (bearerTokenMatches(headers.authorization, bearerToken)) return
  const session = headers.authorization === undefined ? sessions?.find(headers.cookie) : undefined
  if (session) {
    if (readOnlyMethods.has(method)) return
    const csrf = headers['x-csrf-token']
    if (typeof csrf === 'string' && secretsEqual(csrf, session.csrfToken)) return
    throw new ControlApiError({
      status: 403,
      code: 'FORBIDDEN',
      message:
        'A dashboard session changes state only with its X-CSRF-Token header: send the token the login answered (the dashboard keeps it in sessionStorage), or log in again.',
    })
  }
  throw new ControlApiError({
    status: 401,
    code: 'UNAUTHORIZED',
    message:
      headers.authorization === undefined
        ? 'This route needs a token: send Authorization: Bearer <token>, with the control API token of the daemon (or log in to the dashboard).'
        : 'The Authorization header does not carry the control API token: send Authorization: Bearer <token>, with the token the daemon was configured with.',
    headers: { 'www-authenticate': 'Bearer realm="stockroute"' },
  })
}
