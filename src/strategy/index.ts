// Strategies: pure functions of prices, positions and time that return intents. May import only
// src/domain (see docs/architecture.md).

export {
  type LimitStrategyConfig,
  limitStrategyConfigSchema,
  type ProtectStrategyConfig,
  protectStrategyConfigSchema,
  type RebalanceStrategyConfig,
  type RebalanceTargetConfig,
  rebalanceStrategyConfigSchema,
  type ScheduleStrategyConfig,
  type StrategyConfig,
  scheduleStrategyConfigSchema,
  strategyConfigSchema,
  type TwapStrategyConfig,
  twapStrategyConfigSchema,
} from './config.js'
export { type AnyStrategy, createStrategy } from './createStrategy.js'
export { StrategyConfigError, type StrategyConfigIssue } from './errors.js'
export { instrumentOf, type StrategyInstrument } from './instrumentOf.js'
export { type CronWindow, latestCronFireTimes } from './latestCronFireTimes.js'
export { createLimitStrategy, type LimitStrategy } from './limit.js'
export { nextCronFireTime } from './nextCronFireTime.js'
export { parseStrategyConfig } from './parseStrategyConfig.js'
export { priceKey } from './priceKey.js'
export {
  createProtectStrategy,
  type ExitAttempt,
  exitAttemptOf,
  type ProtectiveExits,
  type ProtectStrategy,
} from './protect.js'
export { createRebalanceStrategy, defaultRebalanceWindowMs, type RebalanceStrategy } from './rebalance.js'
export { createScheduleStrategy, defaultScheduleLookbackMs, type ScheduleStrategy } from './schedule.js'
export { type OrderSlice, type SlicedOrder, sliceOrder, sliceTimes } from './sliceOrder.js'
export {
  createTwapStrategy,
  defaultTwapJitterPct,
  type TwapRemainder,
  type TwapRemainderDecision,
  type TwapSlice,
  type TwapStrategy,
} from './twap.js'
export type {
  CashView,
  ListingView,
  MarketPrice,
  MarketSymbol,
  PositionView,
  ProtectiveExit,
  ProtectiveMemory,
  ProtectiveTrigger,
  StatefulStrategy,
  Strategy,
  StrategyDecision,
  StrategyInput,
  StrategyIntent,
  StrategyKind,
  StrategyMemory,
  WatchedPosition,
} from './types.js'
