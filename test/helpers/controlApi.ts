import { afterAll, beforeAll, expect } from 'vitest'
import { errorBodySchema } from '../../src/daemon/controlApi/contract.js'
import type { ControlPlane } from '../../src/daemon/controlApi/controlPlane.js'
import {
  type ControlServer,
  type StartControlServerParameters,
  startControlServer,
} from '../../src/daemon/controlApi/index.js'
import { createControlPlane } from '../../src/daemon/createControlPlane.js'
import { createStrategyControl } from '../../src/daemon/strategyControl.js'
import type { AnyStrategy } from '../../src/strategy/index.js'
import { createTestEngine, engineLedgers, type TestEngineOptions } from './engine.js'
import { chainWithRouter } from './localChains.js'
import { useSandboxService } from './sandboxService.js'

// The control server over real HTTP on loopback, as the control API and swap API tests use it: a
// test engine (sandbox service, ledger file, anvil chains) with a control server over it, and one
// way to call it with fetch.

export type TestEngine = Awaited<ReturnType<typeof createTestEngine>>

// biome-ignore lint/suspicious/noExplicitAny: tests read reply bodies freely
export type Json = any
export type Reply = { status: number; headers: Headers; text: string; body: Json }

export type CallOptions = {
  method?: string
  /** Sent as JSON unless it is a string. */
  body?: unknown
  headers?: Record<string, string>
  query?: Record<string, string>
  /** Another server's URL; default the file's server. */
  base?: string
  /** The authorization header; default `Bearer <token>` when the server has one; null for none. */
  auth?: string | null
}

export type UseControlServerOptions = {
  engine: Omit<TestEngineOptions, 'ledgerPath'>
  /** The server's bearer token; default none (an open server). */
  token?: string
  /** Further parameters of the server, given the engine (a control plane, extra routes). */
  server?: (testEngine: TestEngine) => Omit<StartControlServerParameters, 'engine' | 'bearerToken'>
}

/**
 * Starts, for this test file, a sandbox service, a test engine over it and a control server over
 * the engine; closed after the file. Read `testEngine()` and `server()` inside tests.
 */
export function useControlServer(options: UseControlServerOptions) {
  const service = useSandboxService()
  const ledgers = engineLedgers()
  let testEngine: TestEngine | undefined
  let server: ControlServer | undefined
  beforeAll(async () => {
    testEngine = await createTestEngine(service(), { ...options.engine, ledgerPath: ledgers.path() })
    server = await startControlServer({
      ...options.server?.(testEngine),
      engine: testEngine.engine,
      ...(options.token === undefined ? {} : { bearerToken: options.token }),
    })
  })
  afterAll(async () => {
    await server?.close()
    await testEngine?.close()
  })
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('control server not started yet: call it inside a test')
    return value
  }
  const serverOf = () => started(server)
  return {
    testEngine: () => started(testEngine),
    server: serverOf,
    call: callerOf(() => serverOf().url, options.token),
  }
}

/** `call(path, options)`: one HTTP call to the server at `url()`, with `token` (unless `auth` is given). */
export function callerOf(url: () => string, token?: string) {
  return async function call(path: string, options: CallOptions = {}): Promise<Reply> {
    const search = options.query ? `?${new URLSearchParams(options.query)}` : ''
    const hasBody = options.body !== undefined
    const auth = options.auth === undefined ? (token === undefined ? null : `Bearer ${token}`) : options.auth
    const response = await fetch(`${options.base ?? url()}${path}${search}`, {
      method: options.method ?? (hasBody ? 'POST' : 'GET'),
      headers: {
        ...(hasBody ? { 'content-type': 'application/json' } : {}),
        ...(auth === null ? {} : { authorization: auth }),
        ...options.headers,
      },
      ...(hasBody
        ? { body: typeof options.body === 'string' ? options.body : JSON.stringify(options.body) }
        : {}),
    })
    const text = await response.text()
    let body: Json = {}
    try {
      body = JSON.parse(text)
    } catch {
      // not JSON: the test says what it expected
    }
    return { status: response.status, headers: response.headers, text, body }
  }
}

/** Expects a 400 naming `fields`, in the one error shape. */
export function expectBadRequest(reply: Reply, fields: string[]) {
  expect(reply.status, reply.text).toBe(400)
  const body = errorBodySchema.parse(reply.body)
  expect(body.code).toBe('BAD_REQUEST')
  expect(body.details?.map((detail) => detail.field)).toEqual(fields)
}

/** The daemon's own control plane over a test engine, with these strategies (default none). */
export function controlPlaneOf(
  testEngine: TestEngine,
  strategies: readonly AnyStrategy[] = [],
): ControlPlane {
  const { engine, ledger } = testEngine
  return createControlPlane({ engine, ledger, strategies: createStrategyControl({ strategies, ledger }) })
}

/** Submits a buy of 1000 in AAPL and waits for its end through the engine (its `done`), not by polling. */
export async function buyToTheEnd(testEngine: TestEngine, key: string) {
  const { executionId, done } = await testEngine.engine.submit({
    intentId: `api:${key}`,
    chainId: chainWithRouter().chainId,
    ticker: 'AAPL',
    exchange: 0,
    side: 'buy',
    amountIn: '1000',
  })
  await done
  return executionId
}
