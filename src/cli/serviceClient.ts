import type { Command } from 'commander'
import { privateKeyToAccount } from 'viem/accounts'
import { createServiceClient, type ServiceClient } from '../api/createServiceClient.js'
import { loadConfig, type StockrouteConfig } from '../config/config.js'

/** Adds the options every command that talks to the service takes. */
export function withServiceOptions(command: Command): Command {
  return command
    .option(
      '--config <file>',
      'stockroute.json to use (secrets from the environment or the .env beside it)',
      'stockroute.json',
    )
    .option('--json', 'print the result as JSON on stdout')
}

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

/** Prints `value` as JSON (bigints as decimal strings) or as the human text given. */
export function printResult(json: boolean | undefined, value: unknown, human: () => string): void {
  if (json) {
    process.stdout.write(
      `${JSON.stringify(value, (_key, v) => (typeof v === 'bigint' ? v.toString() : v))}\n`,
    )
  } else {
    process.stdout.write(`${human()}\n`)
  }
}
