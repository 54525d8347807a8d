import { createServiceClient, type ServiceClient } from '@stockroute/client/api/createServiceClient.js'
import { privateKeyToAccount } from 'viem/accounts'
import { loadDaemonConfig, type StockrouteConfig } from '../config/config.js'
import { connectToEmbeddedSandbox } from '../daemon/embeddedConnection.js'

/**
 * The configuration of a command that talks to the service, read as `config check` and
 * `stockroute start` read it ({@link loadDaemonConfig}): a service config with its secrets, or an
 * embedded one (config/default.json), which reaches the sandbox its running daemon made (throws
 * `SANDBOX_NOT_RUNNING`, saying how to start it, when none runs).
 *
 * @example
 * const config = loadServiceConfig('config/default.json') // while `npm start` runs
 * config.service.baseUrl // 'http://127.0.0.1:43121'
 */
export function loadServiceConfig(
  configPath: string,
  environment: NodeJS.ProcessEnv = process.env,
): StockrouteConfig {
  const given = loadDaemonConfig(configPath, environment)
  return given.kind === 'service' ? given.config : connectToEmbeddedSandbox(given)
}

/**
 * A service client from a config file ({@link loadServiceConfig}): API key credentials, and the
 * wallet's address as X-Maker-Addr for maker endpoints.
 */
export function serviceClientFromConfig(configPath: string): {
  client: ServiceClient
  config: StockrouteConfig
} {
  const config = loadServiceConfig(configPath)
  const account = privateKeyToAccount(config.secrets.privateKey)
  const client = createServiceClient({
    baseUrl: config.service.baseUrl,
    credentials: { apiKey: config.secrets.apiKey, apiSecret: config.secrets.apiSecret },
    makerAddress: account.address,
  })
  return { client, config }
}
