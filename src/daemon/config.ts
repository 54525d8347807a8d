import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { parse as parseDotenv } from 'dotenv'
import { getAddress, isAddress } from 'viem'
import { z } from 'zod'

const address = z
  .string()
  .refine((text) => isAddress(text, { strict: false }), 'must be a 0x address of 40 hex digits')
  .transform((text) => getAddress(text))

const envName = z
  .string()
  .regex(/^[A-Z_][A-Z0-9_]*$/, 'must be an environment variable name such as STOCKROUTE_API_KEY')

/** The stockroute.json file: public settings only; secrets are named here and read from the environment. */
export const configFileSchema = z.object({
  service: z.object({
    /** Base URL of the service, e.g. http://127.0.0.1:43121 for the sandbox. */
    baseUrl: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL such as https://api.example.com' }),
    apiKeyEnv: envName.default('STOCKROUTE_API_KEY'),
    apiSecretEnv: envName.default('STOCKROUTE_API_SECRET'),
  }),
  wallet: z.object({ privateKeyEnv: envName.default('STOCKROUTE_PRIVATE_KEY') }).default({
    privateKeyEnv: 'STOCKROUTE_PRIVATE_KEY',
  }),
  chains: z
    .array(
      z.object({
        chainId: z.number().int().positive(),
        rpcUrl: z.url({ protocol: /^https?$/, error: 'must be an http(s) JSON-RPC URL' }),
        /** The contract quotes are executed through (router, else settlement): pinned, checked by the guard. */
        executorAddress: address,
        /** The only key whose quote signatures are accepted on this chain. */
        operatorAddress: address,
      }),
    )
    .min(1, 'list at least one chain'),
  /** Where the SQLite ledger and logs live; relative paths are relative to the config file. */
  dataDir: z.string().min(1).default('data'),
})

export type ConfigFile = z.output<typeof configFileSchema>

/** A loaded configuration: the file's settings, its secrets resolved, its paths absolute. */
export type StockrouteConfig = Omit<ConfigFile, 'dataDir'> & {
  configPath: string
  dataDir: string
  ledgerPath: string
  secrets: { apiKey: string; apiSecret: string; privateKey: `0x${string}` }
}

export class ConfigError extends Error {
  override name = 'ConfigError'
  readonly code = 'CONFIG_INVALID'
  constructor(
    readonly shortMessage: string,
    readonly metaMessages: string[] = [],
  ) {
    super([shortMessage, ...metaMessages].join('\n'))
  }
}

/**
 * Reads a stockroute.json, validates it, and resolves its secrets from the environment, with the
 * `.env` file beside it filling in what the real environment does not set.
 *
 * @example
 * const config = loadConfig('sandbox/stockroute.json')
 * config.ledgerPath // '/…/sandbox/data/stockroute.sqlite'
 */
export function loadConfig(path: string, environment: NodeJS.ProcessEnv = process.env): StockrouteConfig {
  const configPath = resolve(path)
  if (!existsSync(configPath)) throw new ConfigError(`config file not found: ${configPath}`)
  let json: unknown
  try {
    json = JSON.parse(readFileSync(configPath, 'utf8'))
  } catch (error) {
    throw new ConfigError(`${configPath} is not valid JSON: ${(error as Error).message}`)
  }
  const parsed = configFileSchema.safeParse(json)
  if (!parsed.success) {
    throw new ConfigError(
      `${configPath} is invalid:`,
      parsed.error.issues.map((issue) => `  ${issue.path.join('.') || '(file)'}: ${issue.message}`),
    )
  }
  const file = parsed.data
  const dotenvPath = join(dirname(configPath), '.env')
  const fromDotenv = existsSync(dotenvPath) ? parseDotenv(readFileSync(dotenvPath)) : {}
  const env = { ...fromDotenv, ...environment }
  const missing: string[] = []
  const secret = (name: string) => {
    const value = env[name]
    if (!value) missing.push(name)
    return value ?? ''
  }
  const apiKey = secret(file.service.apiKeyEnv)
  const apiSecret = secret(file.service.apiSecretEnv)
  const privateKey = secret(file.wallet.privateKeyEnv)
  if (missing.length > 0) {
    throw new ConfigError(`missing secrets: ${missing.join(', ')}`, [
      `  set them in the environment or in ${dotenvPath} (NAME=value, one per line)`,
    ])
  }
  if (!/^0x[0-9a-fA-F]{64}$/.test(privateKey)) {
    throw new ConfigError(`${file.wallet.privateKeyEnv} must be a 0x-prefixed 32-byte hex private key`)
  }
  const dataDir = resolve(dirname(configPath), file.dataDir)
  return {
    service: file.service,
    wallet: file.wallet,
    chains: file.chains,
    configPath,
    dataDir,
    ledgerPath: join(dataDir, 'stockroute.sqlite'),
    secrets: { apiKey, apiSecret, privateKey: privateKey as `0x${string}` },
  }
}
