import { createHash, timingSafeEqual } from 'node:crypto'

/**
 * Whether an `Authorization` header carries `Bearer <expected>`, compared in constant time (both
 * sides hashed first, so neither the token's content nor its length leaks through timing).
 *
 * @example
 * bearerTokenMatches('Bearer s3cret-token', 's3cret-token') // true
 * bearerTokenMatches('Bearer guess', 's3cret-token') // false
 * bearerTokenMatches(undefined, 's3cret-token') // false
 */
export function bearerTokenMatches(authorization: string | undefined, expected: string): boolean {
  const match = /^Bearer[ ]+(\S+)[ ]*$/i.exec(authorization ?? '')
  const given = match?.[1] ?? ''
  const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest()
  const same = timingSafeEqual(digest(given), digest(expected))
  return same && match !== null
}
