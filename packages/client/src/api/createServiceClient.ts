import type { Address } from 'viem'
import { connectMaker } from './actions/connectMaker.js'
import { type ApiKeySigner, hmacApiKeySigner } from './auth/apiKeySigner.js'
import { type ClockSkew, createClockSkew } from './auth/clockSkew.js'
import { createWalletSession, type WalletSession } from './auth/walletSession.js'
import { permanentConnectionFailureOf, ServiceUnreachableError } from './connectionFailure.js'
import {
  LoginError,
  parseErrorBody,
  type RequestDescription,
  ServiceAuthError,
  ServiceBadRequestError,
  ServiceHttpError,
  ServiceNotFoundError,
  ServiceRateLimitError,
  ServiceResponseError,
  ServiceTimeoutError,
  ServiceTransportError,
  ServiceUnavailableError,
} from './errors.js'
import { type RequestLimiter, sharedLimiterFor, sleep } from './limiter.js'
import type { CallOptions, ServiceClient, ServiceClientConfig, ServiceRequest } from './serviceClient.js'

export type {
  CallOptions,
  QueryValue,
  ServiceAuth,
  ServiceClient,
  ServiceClientConfig,
  ServiceRequest,
} from './serviceClient.js'

/**
 * The transport every endpoint action uses: signs (API key) or authenticates (JWT), spaces calls
 * through the key's limiter, retries idempotent reads with full-jitter backoff inside the call's
 * time budget (timeouts, resets, 5xx; never a refused connection or an unknown host, which fail
 * at once with {@link ServiceUnreachableError}), honours 429 Retry-After, validates the reply and
 * maps every failure to one error class that says what to do.
 *
 * @example
 * const client = createServiceClient({ baseUrl, credentials: { apiKey, apiSecret } })
 * const chains = await getChains(client)
 */
export function createServiceClient(config: ServiceClientConfig): ServiceClient {
  const transport = transportOf(config)
  const client: ServiceClient = {
    baseUrl: transport.baseUrl,
    clock: transport.clock,
    session: undefined,
    request,
  }
  if (config.wallet) client.session = walletSessionOf(client, config.wallet)

  function request<Data>(request: ServiceRequest<Data>, options: CallOptions = {}): Promise<Data> {
    return callService(transport, client, request, options)
  }

  return client
}

/** What every call of one client shares: its configuration and the settings drawn from it once. */
type Transport = {
  config: ServiceClientConfig
  baseUrl: string
  doFetch: typeof fetch
  localNow: () => number
  clock: ClockSkew
  signer: ApiKeySigner | undefined
  limiter: RequestLimiter
  defaultBudgetMs: number
  retryBaseDelayMs: number
}

function transportOf(config: ServiceClientConfig): Transport {
  const baseUrl = config.baseUrl.replace(/\/+$/, '')
  const doFetch = config.fetch ?? fetch
  const localNow = config.now ?? Date.now
  const clock = createClockSkew(localNow)
  const signer =
    config.credentials && 'signer' in config.credentials
      ? config.credentials.signer
      : config.credentials
        ? hmacApiKeySigner(config.credentials)
        : undefined
  const limiter =
    config.limiter ??
    sharedLimiterFor(signer?.apiKey ?? `public:${baseUrl}`, {
      requestsPerSecond: config.requestsPerSecond ?? 50,
    })
  const defaultBudgetMs = config.budgetMs ?? 10_000
  const retryBaseDelayMs = config.retryBaseDelayMs ?? 100
  return { config, baseUrl, doFetch, localNow, clock, signer, limiter, defaultBudgetMs, retryBaseDelayMs }
}

/** A wallet login whose JWT maker calls use: the login itself goes through `client` (connectMaker). */
function walletSessionOf(
  client: ServiceClient,
  wallet: NonNullable<ServiceClientConfig['wallet']>,
): WalletSession {
  return createWalletSession({
    ...wallet,
    login: async (body) => {
      const { jwt } = await connectMaker(client, {
        walletAddress: body.wallet_address as Address,
        chainId: Number(body.chain_id),
        message: body.message,
        signature: body.signature,
      })
      return jwt
    },
  })
}

/** One call across its attempts: what they share, and what the failures so far left. */
type Call<Data> = {
  request: ServiceRequest<Data>
  options: CallOptions
  description: RequestDescription
  budgetMs: number
  deadline: number
  queryPairs: [string, string][]
  body: string
  attempt: number
  reloggedIn: boolean
  lastError: unknown
}

/** Attempts `request` until it succeeds, fails for good, or its time budget runs out. */
async function callService<Data>(
  transport: Transport,
  client: ServiceClient,
  request: ServiceRequest<Data>,
  options: CallOptions,
): Promise<Data> {
  const call = startCall(transport, request, options)
  for (;;) {
    call.attempt += 1
    const remaining = call.deadline - transport.localNow()
    if (remaining <= 0)
      throw new ServiceTimeoutError(call.description, call.budgetMs, call.attempt - 1, call.lastError)
    const { signal, dispose } = combine(options.signal, remaining)
    let bearer: string | undefined
    try {
      // Outside the limiter: a login is itself a request and must not wait for a slot held by us.
      bearer =
        request.auth === 'maker' && client.session
          ? await client.session.jwt(transport.clock.now())
          : undefined
      return await attempt(transport, call, bearer, signal)
    } catch (error) {
      await afterFailedAttempt(transport, client, call, error, bearer)
    } finally {
      dispose()
    }
  }
}

function startCall<Data>(
  transport: Transport,
  request: ServiceRequest<Data>,
  options: CallOptions,
): Call<Data> {
  const budgetMs = options.budgetMs ?? transport.defaultBudgetMs
  return {
    request,
    options,
    description: { method: request.method, path: request.path },
    budgetMs,
    deadline: transport.localNow() + budgetMs,
    queryPairs: Object.entries(request.query ?? {}).flatMap(([key, value]): [string, string][] =>
      value === undefined ? [] : [[key, String(value)]],
    ),
    body: request.body === undefined ? '' : JSON.stringify(request.body),
    attempt: 0,
    reloggedIn: false,
    lastError: undefined,
  }
}

/** One attempt: a slot of the limiter, the signed request, its reply validated. */
async function attempt<Data>(
  transport: Transport,
  call: Call<Data>,
  bearer: string | undefined,
  signal: AbortSignal,
): Promise<Data> {
  const { request, queryPairs, body } = call
  const reply = await transport.limiter.schedule(async () => {
    const headers = await authHeaders(transport, request, queryPairs, body, bearer)
    return send(transport, request, queryPairs, body, headers, signal)
  }, signal)
  return parseReply(reply, request, call.description)
}

/**
 * After a failed attempt: returns when another attempt should follow (after a fresh login, or
 * after the backoff), else throws what the call fails with.
 */
async function afterFailedAttempt(
  transport: Transport,
  client: ServiceClient,
  call: Call<unknown>,
  error: unknown,
  bearer: string | undefined,
): Promise<void> {
  const { options, description, budgetMs } = call
  if (options.signal?.aborted) throw options.signal.reason
  // The budget cutting an attempt short is not that attempt's failure: a timeout after
  // transient failures names the last of them as its cause.
  if (!(isTimeout(error) && call.lastError !== undefined)) call.lastError = error
  if (error instanceof ServiceRateLimitError) transport.limiter.pauseFor(error.retryAfterMs)
  if (error instanceof ServiceAuthError && bearer && client.session && !call.reloggedIn) {
    // The JWT was refused (expired early, server restarted): one fresh login, then retry.
    client.session.invalidate(bearer)
    call.reloggedIn = true
    return
  }
  if (!isRetryable(error, call.request.method === 'GET'))
    throw isTimeout(error)
      ? new ServiceTimeoutError(description, budgetMs, call.attempt, call.lastError)
      : error
  const backoff = Math.random() * Math.min(5_000, transport.retryBaseDelayMs * 2 ** (call.attempt - 1))
  const delay = error instanceof ServiceRateLimitError ? Math.max(error.retryAfterMs, backoff) : backoff
  if (transport.localNow() + delay >= call.deadline) {
    throw error instanceof ServiceRateLimitError
      ? error
      : new ServiceTimeoutError(description, budgetMs, call.attempt, call.lastError)
  }
  await sleep(delay, options.signal)
}

/** Only idempotent reads are retried, and only after a failure another attempt may not repeat. */
function isRetryable(error: unknown, idempotent: boolean): boolean {
  // Nothing listening, or no such host: another attempt within the budget would fail the same way.
  return (
    idempotent &&
    !(error instanceof ServiceUnreachableError) &&
    (error instanceof ServiceTransportError ||
      error instanceof ServiceUnavailableError ||
      error instanceof ServiceRateLimitError ||
      isTimeout(error))
  )
}

async function authHeaders(
  transport: Transport,
  request: ServiceRequest<unknown>,
  query: [string, string][],
  body: string,
  bearer: string | undefined,
) {
  const { signer, clock, config } = transport
  const headers: Record<string, string> = { 'content-type': 'application/json' }
  if (request.auth === 'public') return headers
  if (bearer) {
    headers.authorization = `Bearer ${bearer}`
    return headers
  }
  if (!signer) {
    throw new ServiceAuthError(
      401,
      { shape: 'unrecognized', text: 'no API key configured' },
      { method: request.method, path: request.path },
    )
  }
  const timestamp = Math.round(clock.now())
  const makerAddress = request.auth === 'maker' ? config.makerAddress : undefined
  headers['x-api-key'] = signer.apiKey
  headers['x-api-timestamp'] = String(timestamp)
  if (makerAddress) headers['x-maker-addr'] = makerAddress
  headers['x-api-signature'] = await signer.sign({
    timestamp,
    method: request.method,
    path: request.path,
    query,
    makerAddress,
    body,
  })
  return headers
}

async function send(
  transport: Transport,
  request: ServiceRequest<unknown>,
  query: [string, string][],
  body: string,
  headers: Record<string, string>,
  signal: AbortSignal,
) {
  const { baseUrl, localNow, clock } = transport
  const search = new URLSearchParams(query).toString()
  const url = `${baseUrl}${request.path}${search ? `?${search}` : ''}`
  const sentAt = localNow()
  let response: Response
  try {
    response = await transport.doFetch(url, {
      method: request.method,
      headers,
      signal,
      ...(request.method === 'POST' ? { body } : {}),
    })
  } catch (error) {
    if (isTimeout(error) || signal.aborted) throw error
    const description = { method: request.method, path: request.path }
    // Refused or unknown host: thrown as such so that the retry loop gives up at once.
    const failure = permanentConnectionFailureOf(error)
    if (failure) throw new ServiceUnreachableError(description, baseUrl, failure, error)
    throw new ServiceTransportError(description, baseUrl, error)
  }
  const text = await response.text()
  clock.observe(response.headers.get('date'), sentAt, localNow())
  return { status: response.status, headers: response.headers, text }
}

function parseReply<Data>(
  reply: { status: number; headers: Headers; text: string },
  request: ServiceRequest<Data>,
  description: RequestDescription,
): Data {
  if (reply.status >= 400) throw errorFor(reply, request, description)
  let json: unknown
  try {
    json = JSON.parse(reply.text)
  } catch (error) {
    throw new ServiceResponseError(description, `status ${reply.status}, body is not JSON`, error)
  }
  let payload = json
  if (!request.unwrapped) {
    const wrapper = json as { code?: unknown; data?: unknown }
    if (typeof wrapper !== 'object' || wrapper === null || wrapper.code !== 0 || !('data' in wrapper)) {
      throw new ServiceResponseError(description, `expected {code: 0, data}, got ${reply.text.slice(0, 200)}`)
    }
    payload = wrapper.data
  }
  const parsed = request.schema.safeParse(payload)
  if (!parsed.success) {
    const issues = parsed.error.issues.map((issue) => `${issue.path.join('.') || '(data)'}: ${issue.message}`)
    throw new ServiceResponseError(description, issues.slice(0, 5).join('; '), parsed.error)
  }
  return parsed.data
}

function errorFor(
  reply: { status: number; headers: Headers; text: string },
  request: ServiceRequest<unknown>,
  description: RequestDescription,
): ServiceHttpError {
  const body = parseErrorBody(reply.text)
  const { status } = reply
  if (request.path === '/api/v1/makers/connect' && status === 400)
    return new LoginError(status, body, description)
  if (status === 429) return new ServiceRateLimitError(status, body, description, retryAfterMs(reply.headers))
  if (status === 401 || status === 403) return new ServiceAuthError(status, body, description)
  if (status === 404) return new ServiceNotFoundError(status, body, description)
  if (status >= 500) return new ServiceUnavailableError(status, body, description)
  if (status >= 400 && status < 500) return new ServiceBadRequestError(status, body, description)
  return new ServiceHttpError(status, body, description, 'unexpected status')
}

/** Retry-After in seconds or as an HTTP date; 1 s when absent or unreadable. */
function retryAfterMs(headers: Headers): number {
  const value = headers.get('retry-after')
  if (value && /^\d+$/.test(value)) return Number(value) * 1000
  const date = value ? Date.parse(value) : Number.NaN
  return Number.isNaN(date) ? 1000 : Math.max(0, date - Date.now())
}

/**
 * The caller's signal and the attempt's time budget as one signal. Built on a controller and a
 * timer rather than `AbortSignal.any([signal, AbortSignal.timeout(ms)])`: on Node 20 the combined
 * signal stops firing once the timeout signal is garbage-collected, and a call to a server that
 * never answers then hangs for ever. `dispose` clears the timer and the listener.
 */
function combine(
  signal: AbortSignal | undefined,
  timeoutMs: number,
): { signal: AbortSignal; dispose: () => void } {
  const controller = new AbortController()
  const timer = setTimeout(
    () => controller.abort(new DOMException('The operation timed out.', 'TimeoutError')),
    Math.max(1, timeoutMs),
  )
  const forward = () => controller.abort(signal?.reason)
  if (signal?.aborted) forward()
  else signal?.addEventListener('abort', forward, { once: true })
  return {
    signal: controller.signal,
    dispose: () => {
      clearTimeout(timer)
      signal?.removeEventListener('abort', forward)
    },
  }
}

function isTimeout(error: unknown): boolean {
  return error instanceof DOMException && (error.name === 'TimeoutError' || error.name === 'AbortError')
}
