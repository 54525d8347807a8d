import { StockrouteError } from '@stockroute/client/domain/errors.js'

/**
 * The stable code of {@link ConfigError}: the file is missing, is not JSON, breaks the schema, or
 * names secrets that are not set or not usable.
 */
export type ConfigErrorCode = 'CONFIG_INVALID'

/** The remedy of a configuration whose fields are listed as invalid, one per line. */
export const configFieldsRemedy =
  'correct each field listed (every field: docs/configuration.md), then check the file with `stockroute config check --config FILE`'

/**
 * A configuration that cannot be used: `shortMessage` says why, `metaMessages` list the fields or
 * the fix, `remedy` says what to do when neither says it already.
 *
 * @example
 * throw new ConfigError(`${path} is invalid:`, ['  chains: list at least one chain'], { remedy: configFieldsRemedy })
 */
export class ConfigError extends StockrouteError {
  override name = 'ConfigError'
  declare readonly code: ConfigErrorCode
  declare readonly metaMessages: string[]
  constructor(
    shortMessage: string,
    metaMessages: string[] = [],
    options: { remedy?: string | undefined; cause?: unknown } = {},
  ) {
    super({
      code: 'CONFIG_INVALID',
      shortMessage,
      metaMessages,
      remedy: options.remedy,
      cause: options.cause,
    })
  }
}

/**
 * The error for a configuration file that does not exist, saying what to pass instead (commands
 * default `--config` to ./stockroute.json, which a first run does not have).
 *
 * @example
 * if (!existsSync(path)) throw configFileNotFound(resolve(path))
 */
export function configFileNotFound(configPath: string): ConfigError {
  return new ConfigError(
    `config file not found: ${configPath}`,
    [
      "  pass --config FILE (the default is ./stockroute.json, else the demo's config/default.json). To make one:",
      '  `stockroute sandbox --write-config DIR` writes DIR/stockroute.json and DIR/.env for the local sandbox;',
      "  copy config/example.service.json (and .env.example) from stockroute's folder for a real service;",
      '  or run `stockroute start` with no --config: it runs the embedded demo (config/default.json)',
    ],
    {
      remedy:
        'pass --config with the path of an existing stockroute.json, or make one as above (`stockroute sandbox --write-config DIR` is the quickest)',
    },
  )
}
