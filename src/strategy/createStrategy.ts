import { type StrategyConfig, strategyConfigSchema } from './config.js'
import { createLimitStrategy, type LimitStrategy } from './limit.js'
import { parseStrategyConfig } from './parseStrategyConfig.js'
import { createProtectStrategy, type ProtectStrategy } from './protect.js'
import { createRebalanceStrategy, type RebalanceStrategy } from './rebalance.js'
import { createScheduleStrategy, type ScheduleStrategy } from './schedule.js'
import { createTwapStrategy, type TwapStrategy } from './twap.js'

/** Any strategy {@link createStrategy} can build. */
export type AnyStrategy =
  | LimitStrategy
  | ScheduleStrategy
  | RebalanceStrategy
  | TwapStrategy
  | ProtectStrategy

/**
 * Builds the strategy a configuration entry describes, chosen by `kind` (`limit`, `schedule`,
 * `rebalance`), after validating it with {@link strategyConfigSchema}. Accepts unparsed JSON (the
 * daemon may pass its configuration's entries as they are). Throws {@link StrategyConfigError}
 * naming each field at fault and the fix.
 *
 * @example
 * const strategies = config.strategies.map((entry) => createStrategy(entry))
 * const intents = strategies.flatMap((strategy) => strategy.evaluate(snapshot))
 */
export function createStrategy(config: StrategyConfig | unknown): AnyStrategy {
  const parsed = parseStrategyConfig(strategyConfigSchema, config)
  switch (parsed.kind) {
    case 'limit':
      return createLimitStrategy(parsed)
    case 'schedule':
      return createScheduleStrategy(parsed)
    case 'rebalance':
      return createRebalanceStrategy(parsed)
    case 'twap':
      return createTwapStrategy(parsed)
    case 'protect':
      return createProtectStrategy(parsed)
  }
}
