import type { ApiCredential } from './auth/apiKeys.js'
import type { SandboxContext } from './contextTypes.js'
import type { SandboxRequest } from './request.js'

/**
 * Who may call a route: `public` (no credentials), `institution` (API key + signature),
 * `maker` (API key + signature with X-Maker-Addr, or a bearer JWT from wallet login).
 */
export type RouteAuth = 'public' | 'institution' | 'maker'

/** The authenticated caller handed to a handler. */
export type Caller =
  | { kind: 'public' }
  | { kind: 'institution'; credential: ApiCredential }
  | { kind: 'maker'; makerAddress: `0x${string}`; credential: ApiCredential | null }

export type Reply = { status?: number; body: unknown; headers?: Record<string, string> }

export type Route = {
  method: 'GET' | 'POST'
  /** Path pattern; `:name` segments become `request.params.name`. */
  path: string
  auth: RouteAuth
  handle: (request: SandboxRequest, context: SandboxContext, caller: Caller) => Reply | Promise<Reply>
}

/** `{code: 0, data}`, the wrapper of most successful responses. */
export function ok(data: unknown): Reply {
  return { body: { code: 0, data } }
}
