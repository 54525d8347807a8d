import { parseShareQuantity } from '@stockroute/client/domain/unitStrings.js'
import { readConfigFile, readEmbeddedConfig } from '../config/config.js'

/**
 * The size of each TWAP strategy of a configuration, strategy id → shares in ShareToken base units
 * (1e18 per share), read without secrets: what the strategies report subtracts the filled shares
 * from. Empty when the configuration has none.
 *
 * @example
 * configTwapOrders('sandbox/stockroute.json').get('twap-0700') // 1050n * 10n ** 18n
 */
export function configTwapOrders(configPath: string): Map<string, bigint> {
  const daemon = readEmbeddedConfig(configPath)?.daemon ?? readConfigFile(configPath).daemon
  return new Map(
    daemon.strategies.flatMap((strategy) =>
      strategy.kind === 'twap'
        ? [[strategy.id, parseShareQuantity(strategy.quantity) as bigint] as const]
        : [],
    ),
  )
}
