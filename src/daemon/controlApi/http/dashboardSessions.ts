import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'

/** The cookie that carries a dashboard session id. */
export const sessionCookieName = 'stockroute_session'

/** How long a dashboard login lasts, ms. */
const sessionLifetimeMs = 12 * 60 * 60 * 1000

/** Logins kept at most: the oldest goes first, so a flood of logins cannot grow memory. */
const maxSessions = 256

/** A session found for a request: its CSRF token, which state-changing requests must echo. */
export type DashboardSession = { csrfToken: string }

/** The dashboard's logins, in memory: a daemon restart logs every browser out. */
export type DashboardSessions = {
  /** A new session: the random id for the cookie and the CSRF token for the page. */
  create(): { sessionId: string; csrfToken: string }
  /** The live session a `Cookie` header names, or undefined. */
  find(cookieHeader: string | undefined): DashboardSession | undefined
  /** Forgets the session the `Cookie` header names. */
  remove(cookieHeader: string | undefined): void
}

/** Whether two secrets are equal, in constant time (hashed first, so lengths do not leak). */
export function secretsEqual(given: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest()
  return timingSafeEqual(digest(given), digest(expected))
}

/**
 * The dashboard's session store: random 256-bit ids mapped server-side to an expiry and a CSRF
 * token; the browser holds only the id, in an HttpOnly cookie.
 *
 * @example
 * const sessions = createDashboardSessions(Date.now)
 * const { sessionId, csrfToken } = sessions.create()
 * sessions.find(`stockroute_session=${sessionId}`) // { csrfToken }
 */
export function createDashboardSessions(now: () => number = Date.now): DashboardSessions {
  const live = new Map<string, { csrfToken: string; expiresAtMs: number }>()
  const idOf = (cookieHeader: string | undefined) => {
    for (const part of (cookieHeader ?? '').split(';')) {
      const [name, ...value] = part.trim().split('=')
      if (name === sessionCookieName) return value.join('=')
    }
    return undefined
  }
  return {
    create() {
      for (const [id, session] of live) if (session.expiresAtMs <= now()) live.delete(id)
      while (live.size >= maxSessions) {
        const oldest = live.keys().next().value
        if (oldest === undefined) break
        live.delete(oldest)
      }
      const sessionId = randomBytes(32).toString('base64url')
      const csrfToken = randomBytes(32).toString('base64url')
      live.set(sessionId, { csrfToken, expiresAtMs: now() + sessionLifetimeMs })
      return { sessionId, csrfToken }
    },
    find(cookieHeader) {
      const id = idOf(cookieHeader)
      const session = id === undefined ? undefined : live.get(id)
      if (!session || id === undefined) return undefined
      if (session.expiresAtMs <= now()) {
        live.delete(id)
        return undefined
      }
      return { csrfToken: session.csrfToken }
    },
    remove(cookieHeader) {
      const id = idOf(cookieHeader)
      if (id !== undefined) live.delete(id)
    },
  }
}

/** The `Set-Cookie` value of a new session: HttpOnly, SameSite=Strict, whole site, 12 h. */
export function sessionCookie(sessionId: string): string {
  return `${sessionCookieName}=${sessionId}; HttpOnly; SameSite=Strict; Path=/; Max-Age=${sessionLifetimeMs / 1000}`
}

/** The `Set-Cookie` value that ends the session in the browser. */
export function expiredSessionCookie(): string {
  return `${sessionCookieName}=; HttpOnly; SameSite=Strict; Path=/; Max-Age=0`
}
