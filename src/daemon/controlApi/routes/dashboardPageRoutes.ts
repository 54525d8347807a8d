import { type DashboardAsset, loadDashboardAssets } from '../../../dashboard/dashboardAssets.js'
import { loginBodySchema } from '../contract.js'
import { ControlApiError } from '../errors.js'
import {
  type DashboardSessions,
  expiredSessionCookie,
  secretsEqual,
  sessionCookie,
} from '../http/dashboardSessions.js'
import { readBody } from '../http/readBody.js'
import type { ControlReply, ControlRequest, ControlRoute } from '../types.js'

/**
 * The browser's fence: scripts, styles and fetches from this server only, no inline script (a
 * value that slipped into the page as markup could not run), no framing.
 */
const pageHeaders = {
  'content-security-policy':
    "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'; base-uri 'none'; form-action 'self'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  'cache-control': 'no-cache',
}

const serve = (asset: DashboardAsset | undefined): ControlReply => {
  if (!asset)
    throw new ControlApiError({
      status: 404,
      code: 'NOT_FOUND',
      message: 'The dashboard has no such file: open /dashboard/.',
    })
  return { status: 200, headers: { ...pageHeaders, 'content-type': asset.contentType }, body: asset.body }
}

/**
 * `GET /dashboard/session`: whether this browser is logged in, `200` either way, so the page asks
 * before it shows anything and a browser logs no failed load for a visitor who has not logged in
 * yet. A live session also answers its CSRF token: a new tab (its sessionStorage empty) of a
 * logged-in browser can then change state too. Another site cannot read the answer (no CORS) and
 * does not send the cookie (SameSite=Strict).
 */
function sessionState(
  sessions: DashboardSessions,
  bearerToken: string | undefined,
  request: ControlRequest,
): ControlReply {
  const session = sessions.find(request.headers.cookie)
  const body = session
    ? { authenticated: true, csrfToken: session.csrfToken }
    : // No token configured: the API is open, so the page needs no login.
      { authenticated: bearerToken === undefined }
  return { status: 200, headers: { 'cache-control': 'no-store' }, body }
}

/**
 * The dashboard's routes outside `/v1`, served without the token: its static files (they hold no
 * data; every figure comes from `/v1` routes that need the token or a session), `/` redirecting to
 * `/dashboard/`, the session probe, and the login and logout that make and end a session. The
 * login takes the control API token as JSON (a JSON body cannot come from a cross-site form) and
 * answers an HttpOnly, SameSite=Strict session cookie and the CSRF token the page keeps in
 * sessionStorage. The logout ends the session the cookie names on the daemon, whatever the
 * headers, and expires the cookie in the browser.
 *
 * @example
 * const routes = dashboardPageRoutes({ sessions, bearerToken })
 */
export function dashboardPageRoutes(parameters: {
  sessions: DashboardSessions
  /** Undefined: the API is open (no token configured), so every login succeeds. */
  bearerToken: string | undefined
}): ControlRoute[] {
  const { sessions, bearerToken } = parameters
  const assets = loadDashboardAssets()
  return [
    {
      method: 'GET',
      path: '/',
      handle: () => ({ status: 302, headers: { location: '/dashboard/' }, body: '' }),
    },
    {
      method: 'GET',
      path: '/dashboard',
      handle: () => ({ status: 302, headers: { location: '/dashboard/' }, body: '' }),
    },
    { method: 'GET', path: '/dashboard/', handle: () => serve(assets.get('index.html')) },
    // Before `/dashboard/:file`, which would take its path.
    {
      method: 'GET',
      path: '/dashboard/session',
      handle: (request) => sessionState(sessions, bearerToken, request),
    },
    {
      method: 'GET',
      path: '/dashboard/:file',
      handle: (request) => serve(assets.get(request.params.file ?? '')),
    },
    {
      method: 'GET',
      path: '/dashboard/vendor/:file',
      handle: (request) => serve(assets.get(`vendor/${request.params.file ?? ''}`)),
    },
    {
      method: 'POST',
      path: '/dashboard/login',
      handle: async (request) => {
        const { token } = await readBody(request, loginBodySchema, 'Invalid login')
        if (bearerToken !== undefined && !secretsEqual(token, bearerToken))
          throw new ControlApiError({
            status: 401,
            code: 'UNAUTHORIZED',
            message: `This is not the control API token: paste the content of <ledger>.control-token (or the variable named by api.tokenEnv).`,
          })
        const { sessionId, csrfToken } = sessions.create()
        return {
          status: 200,
          headers: { 'set-cookie': sessionCookie(sessionId), 'cache-control': 'no-store' },
          body: { csrfToken },
        }
      },
    },
    {
      method: 'POST',
      path: '/dashboard/logout',
      handle: (request) => {
        // Ended on the daemon whatever the headers: its cookie, wherever it still is, gets 401 from
        // now on. (No CSRF header needed: ending a session gives nobody anything.)
        sessions.remove(request.headers.cookie)
        return { status: 200, headers: { 'set-cookie': expiredSessionCookie() }, body: { loggedOut: true } }
      },
    },
  ]
}
