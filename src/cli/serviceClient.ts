import { createServiceClient, type ServiceClient } from '@stockroute/client/api/createServiceClient.js'
import { privateKeyToAccount } from 'viem/accounts'
import { loadConfig, type StockrouteConfig } from '../config/config.js'

/**
 * A service client from a config file: API key credentials, and the wallet's address as
 * X-Maker-Addr for maker endpoints.
 */
export function serviceClientFromConfig(configPath: string): {
  client: ServiceClient
  config: StockrouteConfig
} {
  const config = loadConfig(configPath)
  const account = privateKeyToAccount(config.secrets.privateKey)
  const client = createServiceClient({
    baseUrl: config.service.baseUrl,
    credentials: { apiKey: config.secrets.apiKey, apiSecret: config.secrets.apiSecret },
    makerAddress: account.address,
  })
  return { client, config }
}
