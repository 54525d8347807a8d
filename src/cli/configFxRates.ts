import type { FxRates } from '@stockroute/client/domain/quotePrice.js'
import { readConfigFile, readEmbeddedConfig } from '../config/config.js'
import { engineSettingsOf } from '../config/engineConfig.js'

/**
 * The FX rates a configuration gives its engine (`execution.fxRates` over the defaults), read
 * without secrets; undefined when it sets none (the engine's defaults apply).
 *
 * @example
 * configFxRates('sandbox/stockroute.json')?.hkex // 12850000n
 */
export function configFxRates(configPath: string): FxRates | undefined {
  const execution = readEmbeddedConfig(configPath)?.execution ?? readConfigFile(configPath).execution
  return engineSettingsOf({ execution }).fxRates
}
