import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { parse as parseDotenv } from 'dotenv'
import { ConfigError, type StockrouteConfig } from '../config/config.js'
import type { Engine } from '../engine/index.js'
import type { Ledger } from '../store/openLedger.js'
import {
  NotificationConfigError,
  type Notifier,
  resolveNotificationSinks,
  startNotifier,
} from './notifications/index.js'

/**
 * The daemon's notifier, when the config names sinks: their secrets read from the environment, the
 * `.env` beside the config filling in (as for the other secrets); undefined without sinks. A missing
 * secret is a {@link ConfigError} naming the sink and the variable, so the daemon does not start.
 *
 * @example
 * const notifier = startDaemonNotifier({ config, ledger, engine, logger })
 * await notifier?.stop()
 */
export function startDaemonNotifier(parameters: {
  config: StockrouteConfig
  ledger: Ledger
  engine: Pick<Engine, 'chains'>
  logger: { child: (bindings: Record<string, unknown>) => Parameters<typeof startNotifier>[0]['logger'] }
  env?: NodeJS.ProcessEnv | undefined
}): Notifier | undefined {
  const { config, ledger, engine } = parameters
  const section = config.daemon.notifications
  if (section.sinks.length === 0) return undefined
  const dotenvPath = join(dirname(config.configPath), '.env')
  const env = {
    ...(existsSync(dotenvPath) ? parseDotenv(readFileSync(dotenvPath)) : {}),
    ...(parameters.env ?? process.env),
  }
  let sinks: ReturnType<typeof resolveNotificationSinks>
  try {
    sinks = resolveNotificationSinks(section, env)
  } catch (error) {
    if (error instanceof NotificationConfigError)
      throw new ConfigError(error.shortMessage, [...error.metaMessages], {
        remedy: error.remedy,
        cause: error,
      })
    throw error
  }
  // Messages name the asset by its symbol ("300 USDC") rather than by its address.
  const symbols = new Map(
    [...engine.chains.values()].map((chain) => [
      `${chain.chainId}:${chain.asset.address.toLowerCase()}`,
      chain.asset.symbol,
    ]),
  )
  return startNotifier({
    ledger,
    sinks,
    logger: parameters.logger.child({ component: 'notifications' }),
    pollMs: section.pollMs,
    maxAttempts: section.maxAttempts,
    assetSymbolOf: (chainId, assetToken) => symbols.get(`${chainId}:${assetToken.toLowerCase()}`),
  })
}
