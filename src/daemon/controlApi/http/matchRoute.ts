import { ControlApiError } from '../errors.js'
import type { ControlRoute } from '../types.js'

/** A route found for a request, with the values of its `:name` segments. */
export type RouteMatch =
  | { kind: 'found'; route: ControlRoute; params: Record<string, string> }
  | { kind: 'notFound' }
  /** The path exists under other methods, listed for the `Allow` header. */
  | { kind: 'methodNotAllowed'; allow: string[] }

/**
 * Builds a matcher over a route table: exact segments, and `:name` segments that match any
 * non-empty segment (percent-decoded into `params`). Throws a 400 {@link ControlApiError} for a
 * segment that is not valid percent-encoding.
 *
 * @example
 * const match = createRouteMatcher([{ method: 'GET', path: '/v1/swaps/:id', handle }])
 * match('GET', '/v1/swaps/12') // { kind: 'found', route, params: { id: '12' } }
 * match('DELETE', '/v1/swaps/12') // { kind: 'methodNotAllowed', allow: ['GET'] }
 */
export function createRouteMatcher(routes: readonly ControlRoute[]) {
  const compiled = routes.map((route) => ({ route, segments: route.path.split('/').slice(1) }))
  return (method: string, path: string): RouteMatch => {
    const parts = path.split('/').slice(1)
    const allow: string[] = []
    for (const { route, segments } of compiled) {
      const params = matchSegments(segments, parts)
      if (!params) continue
      if (route.method === method) return { kind: 'found', route, params }
      if (!allow.includes(route.method)) allow.push(route.method)
    }
    return allow.length > 0 ? { kind: 'methodNotAllowed', allow } : { kind: 'notFound' }
  }
}

function matchSegments(segments: readonly string[], parts: readonly string[]): Record<string, string> | null {
  if (segments.length !== parts.length) return null
  const params: Record<string, string> = {}
  for (const [index, segment] of segments.entries()) {
    const part = parts[index] ?? ''
    if (segment.startsWith(':')) {
      if (part === '') return null
      params[segment.slice(1)] = decodeSegment(part)
    } else if (segment !== part) {
      return null
    }
  }
  return params
}

function decodeSegment(part: string): string {
  try {
    return decodeURIComponent(part)
  } catch {
    throw new ControlApiError({
      status: 400,
      code: 'BAD_REQUEST',
      message: `The path segment ${JSON.stringify(part.slice(0, 40))} is not valid percent-encoding: encode it with encodeURIComponent.`,
    })
  }
}
