// Calls to the daemon's /v1 routes from the dashboard: the session cookie goes by itself (same
// origin), the CSRF token the login answered goes with every state-changing request.

const csrfKey = 'stockroute.csrf'

/** Raised for a 401: the page shows the login form. */
export class Unauthorized extends Error {}

/** Keeps the CSRF token for this tab (sessionStorage: gone when the tab closes). */
export function keepCsrfToken(token) {
  if (token) sessionStorage.setItem(csrfKey, token)
  else sessionStorage.removeItem(csrfKey)
}

/**
 * A JSON call: GET by default; with `body`, a POST of JSON. Throws {@link Unauthorized} on 401 and
 * an Error with the API's message on any other failure.
 * @example const { executions } = await api('/v1/executions?limit=100')
 */
export async function api(path, { method, body } = {}) {
  const headers = { accept: 'application/json' }
  const verb = method ?? (body === undefined ? 'GET' : 'POST')
  if (verb !== 'GET') headers['x-csrf-token'] = sessionStorage.getItem(csrfKey) ?? ''
  if (body !== undefined) headers['content-type'] = 'application/json'
  const response = await fetch(path, {
    method: verb,
    headers,
    credentials: 'same-origin',
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  if (response.status === 401) throw new Unauthorized('log in')
  const text = await response.text()
  const json = text ? JSON.parse(text) : null
  if (!response.ok) throw new Error(json?.message ?? `${verb} ${path} answered ${response.status}`)
  return json
}

/**
 * Whether this browser is logged in (GET /dashboard/session answers 200 either way: a visitor who has
 * not logged in yet costs no failed load in the console); keeps the session's CSRF token, which a new
 * tab does not have yet.
 */
export async function hasSession() {
  const { authenticated, csrfToken } = await api('/dashboard/session')
  if (csrfToken) keepCsrfToken(csrfToken)
  return authenticated
}

/** Logs in with the control API token; keeps the CSRF token it answers. */
export async function logIn(token) {
  const answer = await api('/dashboard/login', { body: { token } }).catch((error) => {
    throw error instanceof Unauthorized ? new Error('That is not the control API token.') : error
  })
  keepCsrfToken(answer.csrfToken)
}

/** Ends the session (server and cookie). */
export async function logOut() {
  await api('/dashboard/logout', { body: {} }).catch(() => undefined)
  keepCsrfToken(undefined)
}
