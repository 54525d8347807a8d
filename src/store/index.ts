// The SQLite ledger: open it with openLedger, then use its repositories.

export * from './allowances.js'
export * from './chainAssets.js'
export * from './checkpoints.js'
export { LedgerInputError, type LedgerInputErrorCode } from './codec.js'
export {
  type EntryHalt,
  type EntryHaltRule,
  type EntryHaltsRepository,
  type EquityPeak,
  signedNotional,
} from './entryHalts.js'
export * from './equityMarks.js'
export * from './events.js'
export * from './executions.js'
export * from './fills.js'
export * from './income.js'
export * from './ledgerOwner.js'
export type { ExecutionFilter } from './listExecutions.js'
export type { Migration } from './migration.js'
export {
  type BackfillProgress,
  formatMigrationProgress,
  type MigrationProgress,
  migrationProgressPrinter,
} from './migrationProgress.js'
export { latestSchemaVersion, migrations } from './migrations.js'
export * from './nonces.js'
export * from './notificationOutbox.js'
export * from './openLedger.js'
export {
  type ApplyPositionAdjustmentResult,
  applyPositionEntry,
  averagePrice,
  type PositionAdjustment,
  type PositionEntry,
  PositionError,
  type PositionErrorCode,
  type PositionMismatch,
  type PositionRecord,
  type PositionState,
  type PositionTokenInfo,
} from './positionAccounting.js'
export type { PositionRename, RenamePositionResult } from './positionRenames.js'
export type { PositionRenameRecord } from './positionRows.js'
export type { AppliedReference, PositionsRepository } from './positions.js'
export * from './protectiveState.js'
export * from './risk.js'
export * from './storageFault.js'
export * from './strategySwitches.js'
export * from './transactionOutcomes.js'
export * from './transactions.js'
