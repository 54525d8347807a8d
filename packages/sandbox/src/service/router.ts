import { badRequest } from './errors.js'
import type { Route } from './route.js'

export type MatchedRoute = { route: Route; params: Record<string, string> }

type CompiledRoute = { route: Route; segments: string[] }

/**
 * Matches method and path against the route table. Returns `methodNotAllowed` when the path exists
 * under another method.
 */
export function createRouter(routes: readonly Route[]) {
  const compiled: CompiledRoute[] = routes.map((route) => ({
    route,
    segments: route.path.split('/').slice(1),
  }))
  return (method: string, path: string): MatchedRoute | 'notFound' | 'methodNotAllowed' => {
    const parts = path.split('/').slice(1)
    let pathMatched = false
    for (const { route, segments } of compiled) {
      const params = matchSegments(segments, parts)
      if (!params) continue
      pathMatched = true
      if (route.method === method) return { route, params }
    }
    return pathMatched ? 'methodNotAllowed' : 'notFound'
  }
}

function matchSegments(segments: readonly string[], parts: readonly string[]): Record<string, string> | null {
  if (segments.length !== parts.length) return null
  const params: Record<string, string> = {}
  for (let index = 0; index < segments.length; index++) {
    const segment = segments[index] as string
    const part = parts[index] as string
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
    throw badRequest(`path segment is not valid percent-encoding: ${part.slice(0, 40)}`)
  }
}
