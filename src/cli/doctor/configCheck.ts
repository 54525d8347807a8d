import { StockrouteError } from '@stockroute/client/domain/errors.js'
import type { Address, LocalAccount } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { ConfigError, type StockrouteConfig } from '../../config/config.js'
import { loadServiceConfig } from '../serviceClient.js'
import { type DoctorCheck, type DoctorReport, reasonOf, reportOf } from './types.js'

/** A configuration doctor can check (a service, its secrets loaded), or the report of why it cannot. */
export type DoctorConfig =
  | { kind: 'service'; config: StockrouteConfig }
  | { kind: 'unusable'; reason: 'invalid' | 'embedded'; report: DoctorReport }

/**
 * Reads the configuration doctor is to check, as every command reads it (`loadServiceConfig`): an
 * embedded one checks the sandbox its running daemon made. A file that does not load (not found,
 * invalid, a secret missing), or an embedded one whose sandbox is not running, gives a report with
 * one failed `config` check that says why and what to do (exit codes `config` and `unreachable`).
 *
 * @example
 * const loaded = loadDoctorConfig('stockroute.json')
 * if (loaded.kind === 'service') await runDoctor(loaded.config)
 */
export function loadDoctorConfig(path: string, environment: NodeJS.ProcessEnv = process.env): DoctorConfig {
  try {
    return { kind: 'service', config: loadServiceConfig(path, environment) }
  } catch (error) {
    if (error instanceof StockrouteError && error.code === 'SANDBOX_NOT_RUNNING')
      return unusable('embedded', `${error.shortMessage}; ${error.remedy}`, {
        ...error.details,
        embedded: true,
      })
    if (!(error instanceof ConfigError)) throw error
    const notFound = error.shortMessage.startsWith('config file not found')
    const meta = notFound ? [] : error.metaMessages.map((line) => line.trim())
    const found =
      meta.length === 0
        ? error.shortMessage
        : `${error.shortMessage}${error.shortMessage.endsWith(':') ? ' ' : '; '}${meta.join('; ')}`
    // Doctor checks a service: the embedded demo the general hint also offers is no use here.
    const fix = notFound
      ? 'pass --config FILE: `stockroute sandbox --write-config DIR` writes DIR/stockroute.json for the local sandbox, config/example.service.json shows one for a real service'
      : error.shortMessage.startsWith('missing secrets')
        ? 'then run doctor again (.env.example lists them)'
        : 'fix it, then run doctor again'
    return unusable('invalid', `${found.replace(/\.$/, '')}; ${fix}`, {
      configPath: path,
    })
  }
}

function unusable(
  reason: 'invalid' | 'embedded',
  message: string,
  details: Record<string, unknown>,
): DoctorConfig {
  return {
    kind: 'unusable',
    reason,
    report: reportOf([{ name: 'config', status: 'fail', message, details }]),
  }
}

/**
 * The `config` check of a loaded configuration: what it names, that its secrets are set (never
 * their values), the wallets they make (the main one, and each chain's extra ones), and the control
 * API's token when one is named. Returns the main wallet's account too (undefined when the private
 * key is not a usable key), and each chain's extra wallets' addresses.
 */
export function checkLoadedConfig(
  config: StockrouteConfig,
  _environment: NodeJS.ProcessEnv = process.env,
): {
  check: DoctorCheck
  account: LocalAccount | undefined
  /** Each chain's extra wallets (`chains[].extraWallets`), in the file's order; loadConfig checked their keys. */
  extraWallets: ReadonlyMap<number, readonly Address[]>
} {
  const extraWallets = new Map(
    config.chains.map((chain) => [
      chain.chainId,
      (chain.extraWallets ?? []).flatMap(({ privateKeyEnv }) => {
        const key = config.secrets.extraWalletKeys[privateKeyEnv]
        return key ? [privateKeyToAccount(key).address] : []
      }),
    ]),
  )
  const extraNames = [
    ...new Set(config.chains.flatMap((chain) => (chain.extraWallets ?? []).map((w) => w.privateKeyEnv))),
  ]
  const secretNames = [
    config.service.apiKeyEnv,
    config.service.apiSecretEnv,
    config.wallet.privateKeyEnv,
    ...extraNames,
  ]
  const details: Record<string, unknown> = {
    configPath: config.configPath,
    serviceBaseUrl: config.service.baseUrl,
    chainIds: config.chains.map((chain) => chain.chainId),
    secrets: Object.fromEntries(secretNames.map((name) => [name, 'set (redacted)'])),
    approvalPolicy: config.execution.approvalPolicy,
    dryRun: config.execution.dryRun,
    strategies: config.daemon.strategies.length,
  }
  if ([...extraWallets.values()].some((addresses) => addresses.length > 0))
    details.extraWallets = Object.fromEntries(extraWallets)
  let account: LocalAccount
  try {
    account = privateKeyToAccount(config.secrets.privateKey)
  } catch (error) {
    return {
      account: undefined,
      extraWallets,
      check: {
        name: 'config',
        status: 'fail',
        message: `${config.wallet.privateKeyEnv} is not a usable private key (${reasonOf(error).split(':')[0]}): set the wallet's 32-byte key, 0x-prefixed`,
        details,
      },
    }
  }
  details.wallet = account.address
  const extraNote = [...extraWallets]
    .filter(([, addresses]) => addresses.length > 0)
    .map(([chainId, addresses]) => `chain ${chainId} +${addresses.join(', ')}`)
  const summary = `${config.configPath}: service ${config.service.baseUrl}, chains ${config.chains.map((chain) => chain.chainId).join(', ')}, wallet ${account.address}${extraNote.length > 0 ? ` (extra wallets: ${extraNote.join('; ')})` : ''}; ${secretNames.join(', ')} set (not shown)${config.execution.dryRun ? '; dry run: nothing is broadcast' : ''}`
  // loadConfig already refused a named token that is set nowhere (environment or .env).
  if (config.secrets.apiToken !== undefined) details.apiToken = 'set (redacted)'
  return {
    account,
    extraWallets,
    check: { name: 'config', status: 'ok', message: `loaded ${summary}`, details },
  }
}
