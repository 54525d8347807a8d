// The execution engine: intents become durable executions in the ledger, quoted just in time,
// guarded before anything is signed, approved, executed, settled and recorded at most once.
export { type CancelOutcome, cancelExecution } from './cancelExecution.js'
export * from './chainRuntime.js'
export * from './checkRiskLimits.js'
export type {
  EngineContext,
  EngineHookFunctions,
  EngineHooks,
  EngineLogger,
  EngineStageEvent,
  MarketPriceSource,
  TransactionStep,
} from './context.js'
export * from './createEngine.js'
export * from './differingIntentFields.js'
export { decodeSignedTransaction, dryRunSimulation, isDryRunEnd } from './dryRunRecord.js'
export * from './entryHalts.js'
export * from './errors.js'
export * from './guardQuote.js'
export * from './intent.js'
export { serviceMarketPrice } from './marketPrice.js'
export * from './marketStatus.js'
export * from './planApprovals.js'
export * from './recoverExecutions.js'
export * from './resolveInstrument.js'
export * from './settings.js'
export { readStoredQuote, type StoredQuote } from './storedQuote.js'
export type { ChainRuntime, GuardChain, InclusionWait, Instrument, InstrumentResolver } from './types.js'
