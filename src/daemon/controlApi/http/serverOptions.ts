import { z } from 'zod'
import type { ControlPlane } from '../controlPlane.js'
import { ControlServerError } from '../errors.js'
import type { ExtraRoute, SwapApiEngine } from '../types.js'
import { isLoopbackHost } from './isLoopbackHost.js'
import { zodProblems } from './zodProblems.js'

/**
 * The control API's limits when none is given (the config's `api` section has the same defaults):
 * event streams open at once (overall, and per token or dashboard session), and heavy reads
 * waiting their turn. Each one beyond gets 429 `TOO_MANY_REQUESTS` with `Retry-After`.
 */
export const controlApiLimitDefaults = {
  maxEventStreams: 64,
  maxEventStreamsPerToken: 16,
  maxQueuedReads: 1000,
} as const

/** The options of `startControlServer` that are data (the engine, logger and handlers are not checked here). */
export const controlServerOptionsSchema = z.object({
  host: z.string().min(1, 'must not be empty'),
  port: z
    .number()
    .int('must be a whole number')
    .min(0, 'must be 0 to 65535')
    .max(65535, 'must be 0 to 65535'),
  allowRemote: z.boolean(),
  bearerToken: z
    .string()
    .min(1, 'must not be empty: omit it to serve without a token')
    .max(4096, 'is longer than 4096 characters')
    .regex(/^[\x21-\x7e]+$/, 'may contain only printable ASCII characters without spaces')
    .optional(),
  maxBodyBytes: z
    .number()
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(16 * 1024 * 1024, 'must be at most 16 MiB'),
  maxEventStreams: z
    .number()
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(100_000, 'must be at most 100000'),
  maxEventStreamsPerToken: z
    .number()
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(100_000, 'must be at most 100000'),
  maxQueuedReads: z
    .number()
    .int('must be a whole number')
    .min(1, 'must be at least 1')
    .max(1_000_000, 'must be at most 1000000'),
  extraRoutes: z.array(
    z.object({
      method: z.enum(['GET', 'POST', 'PUT', 'PATCH', 'DELETE']),
      path: z
        .string()
        .regex(
          /^\/[A-Za-z0-9._~!$&'()*+,;=@/-]*$/,
          'must be an exact path starting with "/" (no query, no :name)',
        )
        .refine((path) => path !== '/v1' && !path.startsWith('/v1/'), 'must be outside /v1 (the swap API)'),
      handle: z.custom<(...args: never[]) => unknown>(
        (value) => typeof value === 'function',
        'must be a function',
      ),
    }),
  ),
})

/** What {@link checkServerOptions} reads of `startControlServer`'s parameters. */
export type ServerOptionsInput = {
  engine: SwapApiEngine
  controlPlane?: ControlPlane | undefined
  host?: string | undefined
  port?: number | undefined
  allowRemote?: boolean | undefined
  bearerToken?: string | undefined
  maxBodyBytes?: number | undefined
  maxEventStreams?: number | undefined
  maxEventStreamsPerToken?: number | undefined
  maxQueuedReads?: number | undefined
  extraRoutes?: readonly ExtraRoute[] | undefined
}

/**
 * The data options of `startControlServer`, defaulted and checked: the engine and the plane have
 * the functions the routes call, the values are in range, no extra route is listed twice, and a
 * host that is not loopback has `allowRemote` and a bearer token. A problem is an
 * {@link ControlServerError} (`INVALID_OPTIONS`, `NON_LOOPBACK_HOST`).
 *
 * @example
 * const { host, port, bearerToken, maxBodyBytes } = checkServerOptions({ engine, port: 8787 })
 */
export function checkServerOptions(parameters: ServerOptionsInput) {
  checkEngine(parameters.engine)
  checkControlPlane(parameters.controlPlane)
  const options = parseOptions(parameters)
  checkExtraRoutesOnce(options.extraRoutes)
  checkReach(options)
  return options
}

function checkEngine(given: SwapApiEngine | undefined) {
  const engine = given as Partial<SwapApiEngine> | undefined
  const missing = (['submit', 'preview', 'outcome'] as const).filter(
    (name) => typeof engine?.[name] !== 'function',
  )
  if (missing.length > 0)
    throw new ControlServerError({
      code: 'INVALID_OPTIONS',
      shortMessage: `startControlServer: engine must have ${missing.join(', ')}: pass the engine from createEngine.`,
    })
}

function checkControlPlane(given: ControlPlane | undefined) {
  const plane = given as Partial<ControlPlane> | undefined
  if (plane === undefined) return
  const lacking = [
    ...(['cancelExecution', 'halt', 'resume', 'balances'] as const).filter(
      (name) => typeof plane[name] !== 'function',
    ),
    ...(typeof plane.strategies?.list === 'function' && typeof plane.strategies.setEnabled === 'function'
      ? []
      : ['strategies']),
    ...(typeof plane.ledger?.events?.listAfter === 'function' ? [] : ['ledger']),
  ]
  if (lacking.length > 0)
    throw new ControlServerError({
      code: 'INVALID_OPTIONS',
      shortMessage: `startControlServer: controlPlane must have ${lacking.join(', ')}: pass the plane from createControlPlane.`,
    })
}

function parseOptions(parameters: ServerOptionsInput) {
  const parsed = controlServerOptionsSchema.safeParse({
    host: parameters.host ?? '127.0.0.1',
    port: parameters.port ?? 0,
    allowRemote: parameters.allowRemote ?? false,
    bearerToken: parameters.bearerToken,
    maxBodyBytes: parameters.maxBodyBytes ?? 64 * 1024,
    maxEventStreams: parameters.maxEventStreams ?? controlApiLimitDefaults.maxEventStreams,
    maxEventStreamsPerToken:
      parameters.maxEventStreamsPerToken ?? controlApiLimitDefaults.maxEventStreamsPerToken,
    maxQueuedReads: parameters.maxQueuedReads ?? controlApiLimitDefaults.maxQueuedReads,
    extraRoutes: parameters.extraRoutes ?? [],
  })
  if (!parsed.success) {
    const problems = zodProblems(parsed.error, 'options')
    throw new ControlServerError({
      code: 'INVALID_OPTIONS',
      shortMessage: `startControlServer: ${problems.map(({ field, problem }) => `${field} ${problem}`).join('; ')}.`,
      details: { problems },
    })
  }
  return parsed.data
}

function checkExtraRoutesOnce(extraRoutes: readonly { method: string; path: string }[]) {
  const seen = new Set<string>()
  for (const route of extraRoutes) {
    const key = `${route.method} ${route.path}`
    if (seen.has(key))
      throw new ControlServerError({
        code: 'INVALID_OPTIONS',
        shortMessage: `startControlServer: extraRoutes lists ${key} twice: keep one.`,
      })
    seen.add(key)
  }
}

/** Whoever reaches the API can spend the wallet's funds: loopback, or remote behind a token. */
function checkReach(options: { host: string; allowRemote: boolean; bearerToken?: string | undefined }) {
  if (!isLoopbackHost(options.host) && !options.allowRemote)
    throw new ControlServerError({
      code: 'NON_LOOPBACK_HOST',
      shortMessage: `The control API would listen on ${options.host}, which is not a loopback address: whoever reaches it could spend the wallet's funds. Listen on 127.0.0.1 (the default) or ::1, or set allowRemote: true together with a bearerToken.`,
      details: { host: options.host },
    })
  if (options.allowRemote && !isLoopbackHost(options.host) && options.bearerToken === undefined)
    throw new ControlServerError({
      code: 'NON_LOOPBACK_HOST',
      shortMessage: `allowRemote lets the control API listen on ${options.host}, but no bearerToken is set: anyone on the network could spend the wallet's funds. Set a bearerToken (a long random string).`,
      details: { host: options.host },
    })
}
