import { createHash } from 'node:crypto'
import type { IncomingHttpHeaders } from 'node:http'
import { sessionCookieName } from './dashboardSessions.js'

/**
 * Which credential an authenticated request came with, as a key to count its streams by: its
 * `Authorization` header (the bearer token), else its dashboard session cookie, else `none` (a
 * server without a token). Hashed: the key never holds the secret itself.
 *
 * @example
 * credentialOf({ authorization: 'Bearer s3cret' }) // 'token:0c9ae6066b41d371'
 * credentialOf({ cookie: 'stockroute_session=abc' }) // 'session:ba7816bf8f01cfea'
 */
export function credentialOf(headers: IncomingHttpHeaders): string {
  if (headers.authorization !== undefined) return `token:${digest(headers.authorization)}`
  const session = sessionIdOf(headers.cookie)
  return session === undefined ? 'none' : `session:${digest(session)}`
}

function sessionIdOf(cookieHeader: string | undefined): string | undefined {
  for (const part of (cookieHeader ?? '').split(';')) {
    const [name, ...value] = part.trim().split('=')
    if (name === sessionCookieName) return value.join('=')
  }
  return undefined
}

function digest(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex').slice(0, 16)
}
