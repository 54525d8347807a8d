import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { parse as parseDotenv } from 'dotenv'
import { ConfigError, configFieldsRemedy, configFileNotFound } from './configError.js'
import {
  configFileSchema,
  type DaemonConfig,
  embeddedConfigFileSchema,
  executionConfigSchema,
  type StockrouteConfig,
  type StockrouteConfigFile,
} from './configFile.js'
import { daemonSettingsOf } from './daemonConfig.js'
import { ledgerPathOf } from './ledgerPath.js'
import { checkExtraWalletKeys, extraWalletHints, extraWalletNamesOf, isPrivateKeyText } from './walletKeys.js'

// The error type and the file's schemas live in files of their own; re-exported here, where every
// caller already imports from.
export { ConfigError, configFieldsRemedy, configFileNotFound } from './configError.js'
export * from './configFile.js'

/**
 * Reads a stockroute.json and validates it, without reading any secret: enough for commands that
 * touch only the ledger (`stockroute halt` must work even where the secrets are not at hand).
 *
 * @example
 * const file = readConfigFile('sandbox/stockroute.json')
 * openLedger({ path: file.ledgerPath })
 */
export function readConfigFile(path: string): StockrouteConfigFile {
  const configPath = resolve(path)
  const json = readJsonFile(configPath)
  const parsed = configFileSchema.safeParse(json)
  if (!parsed.success) {
    throw new ConfigError(
      `${configPath} is invalid:`,
      parsed.error.issues.map((issue) => `  ${issue.path.join('.') || '(file)'}: ${issue.message}`),
      { remedy: configFieldsRemedy },
    )
  }
  const file = parsed.data
  const dataDir = resolve(dirname(configPath), file.dataDir)
  const execution = file.execution ?? executionConfigSchema.parse({})
  return {
    service: file.service,
    wallet: file.wallet,
    chains: file.chains,
    configPath,
    dataDir,
    execution,
    ledgerPath: ledgerPathOf({ dataDir, execution }),
    daemon: daemonSettingsOf(file),
  }
}

/**
 * Reads the configuration `stockroute start` runs: with a `sandbox` section, an embedded sandbox
 * (no service, chains or secrets in the file: the daemon makes them); else a service
 * configuration with its secrets ({@link loadConfig}). Throws {@link ConfigError} naming the field.
 *
 * @example
 * const daemonConfig = loadDaemonConfig('config/default.json')
 * daemonConfig.kind // 'embedded'
 */
export function loadDaemonConfig(path: string, environment: NodeJS.ProcessEnv = process.env): DaemonConfig {
  const configPath = resolve(path)
  return readEmbeddedConfig(configPath) ?? { kind: 'service', config: loadConfig(configPath, environment) }
}

/** The configuration at `path` when it runs an embedded sandbox (`"sandbox"` section), else undefined. */
export function readEmbeddedConfig(path: string): Extract<DaemonConfig, { kind: 'embedded' }> | undefined {
  const configPath = resolve(path)
  const json = readJsonFile(configPath)
  if (typeof json !== 'object' || json === null || !('sandbox' in json)) return undefined
  const parsed = embeddedConfigFileSchema.safeParse(json)
  if (!parsed.success)
    throw new ConfigError(
      `${configPath} is invalid:`,
      parsed.error.issues.map((issue) => `  ${issue.path.join('.') || '(file)'}: ${issue.message}`),
      { remedy: configFieldsRemedy },
    )
  const file = parsed.data
  return {
    kind: 'embedded',
    configPath,
    dataDir: resolve(dirname(configPath), file.dataDir),
    execution: file.execution ?? executionConfigSchema.parse({}),
    daemon: daemonSettingsOf(file),
    sandbox: file.sandbox,
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
  const file = readConfigFile(path)
  const dotenvPath = join(dirname(file.configPath), '.env')
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
  const apiToken = file.daemon.api.tokenEnv === undefined ? undefined : secret(file.daemon.api.tokenEnv)
  const extraValues = new Map(extraWalletNamesOf(file.chains).map((name) => [name, secret(name)]))
  if (missing.length > 0)
    throw new ConfigError(`missing secrets: ${missing.join(', ')}`, [
      `  set them in the environment or in ${dotenvPath} (NAME=value, one per line)`,
      ...extraWalletHints(file.chains, missing),
    ])
  if (!isPrivateKeyText(privateKey)) {
    throw new ConfigError(`${file.wallet.privateKeyEnv} must be a 0x-prefixed 32-byte hex private key`, [], {
      remedy: `set ${file.wallet.privateKeyEnv} to the wallet's private key: 0x and 64 hex digits`,
    })
  }
  const extraWalletKeys = checkExtraWalletKeys(file, privateKey, extraValues)
  return {
    ...file,
    secrets: { apiKey, apiSecret, privateKey, extraWalletKeys, apiToken },
  }
}

/** The JSON in a configuration file; {@link ConfigError} when it is missing or not JSON. */
function readJsonFile(configPath: string): unknown {
  if (!existsSync(configPath)) throw configFileNotFound(configPath)
  const text = readFileSync(configPath, 'utf8')
  try {
    return JSON.parse(text)
  } catch (error) {
    throw new ConfigError(
      `${configPath} is not valid JSON: ${jsonSyntaxErrorAt(text, (error as Error).message)}`,
      [],
      {
        remedy: 'fix the JSON syntax at the line and column given',
      },
    )
  }
}

/**
 * JSON.parse's `message` about `text` with its place as line and column (1-based) instead of
 * Node's character position; the message unchanged when it gives no place.
 *
 * @example
 * jsonSyntaxErrorAt('{\n  "a": 1 "b": 2\n}', "Expected ',' or '}' after property value in JSON at position 11")
 * // "line 2, column 10: Expected ',' or '}' after property value"
 */
export function jsonSyntaxErrorAt(text: string, message: string): string {
  // Node 20: "… in JSON at position N"; newer Node adds " (line L column C)".
  const place = / in JSON at position (\d+)(?: \(line (\d+) column (\d+)\))?$/.exec(message)
  if (!place) return message
  const what = message.slice(0, place.index)
  if (place[2] !== undefined && place[3] !== undefined) return `line ${place[2]}, column ${place[3]}: ${what}`
  const position = Math.min(Number(place[1]), text.length)
  const before = text.slice(0, position)
  const line = before.split('\n').length
  const column = position - before.lastIndexOf('\n')
  return `line ${line}, column ${column}: ${what}`
}
