import { createServiceClient, type ServiceClient } from '@stockroute/client/api/createServiceClient.js'
import { createRequestLimiter } from '@stockroute/client/api/limiter.js'
import type { StockrouteConfig } from '../../config/config.js'
import { checkChain } from './chainChecks.js'
import { checkLoadedConfig } from './configCheck.js'
import { checkDataFolder } from './dataFolderCheck.js'
import { checkKillSwitch } from './killSwitchCheck.js'
import { checkApiKey, checkClock, checkService } from './serviceChecks.js'
import { checkStrategyRules, serviceTickerRules } from './strategyRulesCheck.js'
import { type DoctorReport, defaultDoctorTimeoutMs, reportOf } from './types.js'

export type RunDoctorOptions = {
  /** Longest wait for any one network call (service call retries included), ms. Default 5 000. */
  timeoutMs?: number | undefined
  /** Gas money below which a wallet is warned about, wei. Default 0.01 ether. */
  minGasWei?: bigint | undefined
  /** Where the control API's token is looked up (besides the .env beside the config). Default process.env. */
  environment?: NodeJS.ProcessEnv | undefined
  /** Stops every check (the promise rejects with the signal's reason). */
  signal?: AbortSignal | undefined
  /** Test seam: the fetch the service client uses. */
  fetch?: typeof fetch | undefined
}

/**
 * Runs every check of `stockroute doctor` on a loaded service configuration: the config itself,
 * the service (reachability and latency, clock skew, the API key), and per configured chain the
 * pins against the service's chain list, the RPC, the executor's code and EIP-712 domain, and the
 * gas, asset and allowance of each wallet trading on it (the main one and the chain's extra ones),
 * and last the ledger's kill switch and who else can reach the data folder. Every network call is
 * bounded by `timeoutMs`, the chains run in parallel, and nothing is sent (no transaction, no router
 * quote). Never throws for what it finds: problems are checks with status `fail` or `warn`.
 *
 * @example
 * const report = await runDoctor(loadConfig('stockroute.json'))
 * if (!report.ok) for (const check of report.checks) if (check.status === 'fail') console.error(check.message)
 */
export async function runDoctor(
  config: StockrouteConfig,
  options: RunDoctorOptions = {},
): Promise<DoctorReport> {
  const timeoutMs = options.timeoutMs ?? defaultDoctorTimeoutMs
  const { signal } = options
  const { check: configCheck, account, extraWallets } = checkLoadedConfig(config, options.environment)

  let sawDateHeader = false
  const baseFetch = options.fetch ?? fetch
  const recordingFetch: typeof fetch = async (input, init) => {
    const response = await baseFetch(input, init)
    if (response.headers.get('date')) sawDateHeader = true
    return response
  }
  const client: ServiceClient = createServiceClient({
    baseUrl: config.service.baseUrl,
    credentials: { apiKey: config.secrets.apiKey, apiSecret: config.secrets.apiSecret },
    ...(account ? { makerAddress: account.address } : {}),
    // A limiter of its own: doctor's few calls must not wait behind a daemon's in the same process.
    limiter: createRequestLimiter({ requestsPerSecond: 10 }),
    budgetMs: timeoutMs,
    fetch: recordingFetch,
  })

  const serviceResult = checkService(client, { timeoutMs, signal })
  const serviceChecks = serviceResult.then(async (service) => {
    if (service.check.status === 'fail')
      return sawDateHeader ? [service.check, checkClock(client, true)] : [service.check]
    // The API key call also refines the clock estimate with one more Date header.
    const apiKey = await checkApiKey(
      client,
      { apiKeyEnv: config.service.apiKeyEnv, apiSecretEnv: config.service.apiSecretEnv },
      { timeoutMs, signal },
    )
    // Lots and ticks need the tickers' info, a signed call: only worth it when the key works.
    const strategies =
      apiKey.status === 'ok'
        ? [
            await checkStrategyRules(
              config.daemon.strategies,
              serviceTickerRules(client, { budgetMs: timeoutMs }),
            ),
          ]
        : []
    return [service.check, checkClock(client, sawDateHeader), apiKey, ...strategies]
  })

  // Each chain's RPC side starts at once; its pins and asset wait for the service's chain list.
  const served = serviceResult.then((result) => result.chains)
  const chainChecks = Promise.all(
    config.chains.map((chain, index) =>
      checkChain(
        {
          chain,
          index,
          served,
          // The main wallet trades on every chain; a chain's extra wallets add to it.
          wallets: [...(account ? [account.address] : []), ...(extraWallets.get(chain.chainId) ?? [])],
          execution: config.execution,
        },
        { timeoutMs, minGasWei: options.minGasWei, signal },
      ),
    ),
  )
  const [service, chains] = await Promise.all([serviceChecks, chainChecks])
  const killSwitch = checkKillSwitch({ ledgerPath: config.ledgerPath, configPath: config.configPath })
  const dataFolder = checkDataFolder({ dataDir: config.dataDir })
  return reportOf([configCheck, ...service, ...chains.flat(), killSwitch, dataFolder])
}
