import { signApiKeyRequest } from '@stockroute/client/domain/apiKeySignature.js'
import type { ApiCredential } from '@stockroute/sandbox/service/auth/apiKeys.js'
import {
  type SandboxService,
  type StartSandboxServiceParameters,
  startSandboxService,
} from '@stockroute/sandbox/service/startSandboxService.js'
import { afterAll, beforeAll, inject } from 'vitest'

/**
 * Starts a sandbox service in this test file's process, over real HTTP on loopback, on the chains
 * of the global setup; stopped after the file. Read it inside tests (it is set in beforeAll).
 */
export function useSandboxService(
  options: Omit<StartSandboxServiceParameters, 'local'> = {},
): () => SandboxService {
  let service: SandboxService | undefined
  beforeAll(async () => {
    service = await startSandboxService({ local: inject('localChains'), ...options })
  })
  afterAll(async () => {
    await service?.stop()
  })
  return () => {
    if (!service) throw new Error('sandbox service not started yet: call it inside a test')
    return service
  }
}

export type ApiCallOptions = {
  method?: 'GET' | 'POST'
  query?: Record<string, string | number | boolean> | [string, string][]
  /** Sign with this credential (API key + signature); omit for a public call. */
  credential?: ApiCredential
  /** X-Maker-Addr, sent and signed. */
  makerAddress?: string
  bearer?: string
  body?: unknown
  /** Override X-API-Timestamp (ms). */
  timestamp?: number
  headers?: Record<string, string>
}

export type ApiReply<Body = unknown> = { status: number; headers: Headers; body: Body }

/** One HTTP call to the sandbox, signed as docs/sandbox.md describes when a credential is given. */
// biome-ignore lint/suspicious/noExplicitAny: tests read reply bodies freely
export async function apiCall<Body = any>(
  service: Pick<SandboxService, 'url'>,
  path: string,
  options: ApiCallOptions = {},
): Promise<ApiReply<Body>> {
  const method = options.method ?? (options.body === undefined ? 'GET' : 'POST')
  const pairs: [string, string][] = Array.isArray(options.query)
    ? options.query
    : Object.entries(options.query ?? {}).map(([key, value]) => [key, String(value)])
  const search = new URLSearchParams(pairs).toString()
  const body =
    options.body === undefined
      ? ''
      : typeof options.body === 'string'
        ? options.body
        : JSON.stringify(options.body)
  const headers: Record<string, string> = { 'content-type': 'application/json', ...options.headers }
  if (options.credential) {
    const timestamp = options.timestamp ?? Date.now()
    headers['x-api-key'] = options.credential.apiKey
    headers['x-api-timestamp'] = String(timestamp)
    if (options.makerAddress) headers['x-maker-addr'] = options.makerAddress
    headers['x-api-signature'] = signApiKeyRequest(options.credential.apiSecret, {
      timestamp,
      method,
      path,
      query: [...new URLSearchParams(search)],
      makerAddress: options.makerAddress,
      body,
    })
  } else if (options.makerAddress) {
    headers['x-maker-addr'] = options.makerAddress
  }
  if (options.bearer) headers.authorization = `Bearer ${options.bearer}`
  const response = await fetch(`${service.url}${path}${search ? `?${search}` : ''}`, {
    method,
    headers,
    ...(method === 'POST' ? { body } : {}),
  })
  const text = await response.text()
  let parsed: unknown = text
  try {
    parsed = JSON.parse(text)
  } catch {
    // keep the raw text: a test will say what it expected
  }
  return { status: response.status, headers: response.headers, body: parsed as Body }
}
