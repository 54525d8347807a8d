// What the service client is: the shapes every endpoint action is written against. The client
// itself is built by createServiceClient.ts, which imports the actions it needs (login), so the
// actions take these types from here.
import type { Address, LocalAccount } from 'viem'
import type { z } from 'zod'
import type { ApiKeySigner } from './auth/apiKeySigner.js'
import type { ClockSkew } from './auth/clockSkew.js'
import type { WalletSession } from './auth/walletSession.js'
import type { RequestLimiter } from './limiter.js'

export type ServiceAuth = 'public' | 'institution' | 'maker'

export type QueryValue = string | number | boolean | bigint | undefined

/** One call to the service, as each endpoint's action describes it. */
export type ServiceRequest<Data> = {
  method: 'GET' | 'POST'
  path: string
  query?: Record<string, QueryValue>
  body?: unknown
  auth: ServiceAuth
  /** Schema of `data` (wrapped replies) or of the whole body (`unwrapped`). */
  schema: z.ZodType<Data>
  /** The chain token list is the one reply without the `{code, data}` wrapper. */
  unwrapped?: boolean
}

/** Per-call options every action takes. */
export type CallOptions = {
  signal?: AbortSignal
  /** Total time for the call, retries included (ms). Default: the client's. */
  budgetMs?: number
}

export type ServiceClientConfig = {
  /** e.g. http://127.0.0.1:43121 (the sandbox) or the service's base URL. */
  baseUrl: string
  /** API key credentials (institution and maker endpoints); or a custom `signer`. */
  credentials?: { apiKey: string; apiSecret: string } | { signer: ApiKeySigner }
  /** X-Maker-Addr for maker endpoints with API-key auth. */
  makerAddress?: Address
  /** Wallet login: maker endpoints then use `Authorization: Bearer <JWT>`. */
  wallet?: { account: LocalAccount; chainId: number }
  /** Client-side rate for the API key (default 50/s, under the sandbox's 100/s). */
  requestsPerSecond?: number
  /** Give a limiter of your own; by default one per API key is shared in the process. */
  limiter?: RequestLimiter
  /** Default total time per call, retries included. Default 10 s. */
  budgetMs?: number
  /** First retry delay cap (ms) for full-jitter backoff. Default 100. */
  retryBaseDelayMs?: number
  fetch?: typeof fetch
  now?: () => number
}

export type ServiceClient = {
  baseUrl: string
  clock: ClockSkew
  session: WalletSession | undefined
  request: <Data>(request: ServiceRequest<Data>, options?: CallOptions) => Promise<Data>
}
