/** A configuration that cannot be used: `shortMessage` says why, `metaMessages` list the fields or the fix. */
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
 * The error for a configuration file that does not exist, saying what to pass instead (commands
 * default `--config` to ./stockroute.json, which a first run does not have).
 *
 * @example
 * if (!existsSync(path)) throw configFileNotFound(resolve(path))
 */
export function configFileNotFound(configPath: string): ConfigError {
  return new ConfigError(`config file not found: ${configPath}`, [
    '  pass --config FILE (the default is stockroute.json in the current folder). To make one:',
    '  `stockroute sandbox --write-config DIR` writes DIR/stockroute.json and DIR/.env for the local sandbox;',
    "  copy config/example.service.json (and .env.example) from stockroute's folder for a real service;",
    '  or run `stockroute start` with no --config: it runs the embedded demo (config/default.json)',
  ])
}
