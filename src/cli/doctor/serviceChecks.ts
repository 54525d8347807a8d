import { type GetChainsReturnType, getChains } from '@stockroute/client/api/actions/getChains.js'
import { getSpreadTables } from '@stockroute/client/api/actions/getSpreadTables.js'
import {
  connectionFailureFix,
  describeConnectionFailure,
  permanentConnectionFailureOf,
} from '@stockroute/client/api/connectionFailure.js'
import type { CallOptions, ServiceClient } from '@stockroute/client/api/createServiceClient.js'
import { ServiceAuthError, serviceErrorText } from '@stockroute/client/api/errors.js'
import { type DoctorCheck, reasonOf, withTimeout } from './types.js'

/** Clock offsets above this are worth a warning, ms. */
export const clockWarnMs = 2_000
/** The API's timestamp window: a signed request further than this from the service's clock is refused, ms. */
export const apiTimestampWindowMs = 30_000

export type ServiceCheckOptions = {
  /** Per call, ms (retries included). */
  timeoutMs: number
  signal?: AbortSignal | undefined
}

/**
 * Runs one service call bounded by `timeoutMs`. The client gets the time budget but not the
 * caller's signal: on Node 20, `AbortSignal.any([signal, AbortSignal.timeout(ms)])` (how the client
 * combines the two) stops firing once the timeout signal is garbage-collected, so a call to a
 * host that never answers could wait forever. The caller's signal and a backstop timer are applied
 * here instead.
 */
function bounded<T>(
  call: (options: CallOptions) => Promise<T>,
  what: string,
  options: ServiceCheckOptions,
): Promise<T> {
  return withTimeout(call({ budgetMs: options.timeoutMs }), options.timeoutMs + 1_000, what, options.signal)
}

/**
 * The `service` check: GET /api/v1/chains answers, in how many ms, and which chains it serves.
 * Returns the chain list for the per-chain checks (undefined when the service could not be read).
 */
export async function checkService(
  client: ServiceClient,
  options: ServiceCheckOptions,
): Promise<{ check: DoctorCheck; chains: GetChainsReturnType | undefined }> {
  const started = performance.now()
  try {
    const chains = await bounded(
      (callOptions) => getChains(client, {}, callOptions),
      'GET /api/v1/chains',
      options,
    )
    const latencyMs = Math.round(performance.now() - started)
    const ids = chains.chains.map((chain) => chain.chainId)
    return {
      chains,
      check: {
        name: 'service',
        status: 'ok',
        message: `${client.baseUrl} answers GET /api/v1/chains in ${latencyMs} ms: it serves chains ${ids.join(', ')} (default ${chains.defaultChainId})`,
        details: { baseUrl: client.baseUrl, latencyMs, chainIds: ids, defaultChainId: chains.defaultChainId },
      },
    }
  } catch (error) {
    if (options.signal?.aborted) throw error
    const latencyMs = Math.round(performance.now() - started)
    const failure = permanentConnectionFailureOf(error)
    if (failure)
      return {
        chains: undefined,
        check: {
          name: 'service',
          status: 'fail',
          message: `${describeConnectionFailure(client.baseUrl, failure)}: ${connectionFailureFix(failure, 'service.baseUrl', 'the service')} (chain pins, assets and the API key are not checked until it answers)`,
          details: { baseUrl: client.baseUrl, latencyMs, error: reasonOf(error), connection: failure.kind },
        },
      }
    return {
      chains: undefined,
      check: {
        name: 'service',
        status: 'fail',
        message: `GET ${client.baseUrl}/api/v1/chains failed after ${latencyMs} ms: ${reasonOf(error)}; check service.baseUrl, the network and that the service is up (chain pins, assets and the API key are not checked until it answers)`,
        details: { baseUrl: client.baseUrl, latencyMs, error: reasonOf(error) },
      },
    }
  }
}

/**
 * The `clock` check: this machine's clock against the service's, from the replies' Date headers
 * (`client.clock`, which has a resolution of one second). Warns above {@link clockWarnMs}, fails
 * beyond the API's ±{@link apiTimestampWindowMs} window. `sawDateHeader` says whether any reply
 * carried one (without it the offset is unknown).
 */
export function checkClock(client: ServiceClient, sawDateHeader: boolean): DoctorCheck {
  if (!sawDateHeader)
    return {
      name: 'clock',
      status: 'warn',
      message:
        "the service's replies carry no Date header, so the clock skew is unknown: keep this machine's clock synced (NTP) so that signed requests stay inside the API's ±30 s window",
      details: { offsetMs: null },
    }
  const offsetMs = client.clock.offsetMs()
  const details = { offsetMs, warnAboveMs: clockWarnMs, windowMs: apiTimestampWindowMs }
  if (offsetMs === 0)
    return {
      name: 'clock',
      status: 'ok',
      message: "this machine's clock is within 1 s of the service's (from its Date header)",
      details,
    }
  const seconds = (Math.abs(offsetMs) / 1000).toFixed(1)
  const direction = offsetMs > 0 ? 'behind' : 'ahead of'
  const found = `this machine's clock is ${seconds} s ${direction} the service's (from its Date header)`
  const fix = 'sync it with NTP (e.g. `timedatectl set-ntp true`, or chrony)'
  if (Math.abs(offsetMs) > apiTimestampWindowMs)
    return {
      name: 'clock',
      status: 'fail',
      message: `${found}: beyond the API's ±${apiTimestampWindowMs / 1000} s timestamp window; stockroute corrects its API timestamps by the measured offset, but quote deadlines and logs use this clock: ${fix}`,
      details,
    }
  if (Math.abs(offsetMs) > clockWarnMs)
    return {
      name: 'clock',
      status: 'warn',
      message: `${found}: inside the API's ±${apiTimestampWindowMs / 1000} s window, but quote deadlines are judged by this clock: ${fix}`,
      details,
    }
  return { name: 'clock', status: 'ok', message: found, details }
}

/**
 * The `api-key` check: one signed institution call that costs nothing (GET
 * /market/v1/hkex/spread-tables). A refusal (401/403) fails with the service's own message.
 */
export async function checkApiKey(
  client: ServiceClient,
  parameters: { apiKeyEnv: string; apiSecretEnv: string },
  options: ServiceCheckOptions,
): Promise<DoctorCheck> {
  const { apiKeyEnv, apiSecretEnv } = parameters
  const path = '/market/v1/hkex/spread-tables'
  try {
    const tables = await bounded(
      (callOptions) => getSpreadTables(client, { market: 'hkex' }, callOptions),
      `GET ${path}`,
      options,
    )
    return {
      name: 'api-key',
      status: 'ok',
      message: `the service accepts the API key in ${apiKeyEnv} and its secret: signed GET ${path} answered ${tables.length} spread table${tables.length === 1 ? '' : 's'}`,
      details: { path, tables: tables.length },
    }
  } catch (error) {
    if (options.signal?.aborted) throw error
    if (error instanceof ServiceAuthError)
      return {
        name: 'api-key',
        status: 'fail',
        message: `the service refused the API key: ${error.status} ${serviceErrorText(error.body)}; check ${apiKeyEnv} and ${apiSecretEnv} (a key and its secret go together; no quotes or spaces around them in .env) and this machine's clock`,
        details: { path, status: error.status, error: serviceErrorText(error.body) },
      }
    return {
      name: 'api-key',
      status: 'fail',
      message: `signed GET ${path} failed: ${reasonOf(error)}; the API key could not be checked`,
      details: { path, error: reasonOf(error) },
    }
  }
}
