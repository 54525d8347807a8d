import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { parse as parseDotenv } from 'dotenv'
import { configFileNotFound, readConfigFile, readEmbeddedConfig } from '../../config/config.js'
import type { DaemonSettings } from '../../config/daemonConfig.js'
import { ledgerPathOf } from '../../config/ledgerPath.js'

/** What a command that reads or steers a ledger needs of a configuration: no secrets. */
export type LedgerTarget = {
  configPath: string
  /** The ledger the command uses: the daemon that owns it (if any) keeps its runtime file beside it. */
  ledgerPath: string
  /** The daemon's sections (strategies, `api.tokenEnv`), defaults filled in. */
  daemon: DaemonSettings
  /** Variables of the `.env` beside the config (the environment wins over them where both are set). */
  dotenv: Readonly<Record<string, string>>
}

/**
 * Reads the configuration a command names, without its secrets: a service configuration
 * (stockroute.json) or an embedded one (config/default.json, `"sandbox": {"embedded": true}`). The
 * ledger is the configuration's own (`dataDir/stockroute.sqlite`, or the dry-run file when
 * `execution.dryRun` is set), unless `dryRun` says otherwise. Throws `ConfigError`.
 *
 * @example
 * const target = readLedgerTarget('sandbox/stockroute.json')
 * target.ledgerPath // '/…/sandbox/data/stockroute.sqlite'
 */
export function readLedgerTarget(path: string, options: { dryRun?: boolean | undefined } = {}): LedgerTarget {
  const configPath = resolve(path)
  if (!existsSync(configPath)) throw configFileNotFound(configPath)
  const dotenvPath = join(dirname(configPath), '.env')
  const dotenv = existsSync(dotenvPath) ? parseDotenv(readFileSync(dotenvPath)) : {}
  const embedded = readEmbeddedConfig(configPath)
  if (embedded)
    return {
      configPath,
      ledgerPath: ledgerPathOf({ dataDir: embedded.dataDir, execution: embedded.execution }, options),
      daemon: embedded.daemon,
      dotenv,
    }
  const file = readConfigFile(configPath)
  return {
    configPath,
    ledgerPath: options.dryRun === undefined ? file.ledgerPath : ledgerPathOf(file, options),
    daemon: file.daemon,
    dotenv,
  }
}
