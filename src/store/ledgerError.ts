import { StockrouteError } from '@stockroute/client/domain/errors.js'

/** `PRAGMA application_id` of a stockroute ledger ("SRLG"): a SQLite file of another program is refused. */
export const ledgerApplicationId = 0x53524c47

/** Stable codes of {@link LedgerError}. */
export type LedgerErrorCode =
  | 'LEDGER_OPEN_FAILED'
  | 'LEDGER_NOT_FOUND'
  | 'LEDGER_NOT_STOCKROUTE'
  | 'LEDGER_TOO_NEW'
  | 'LEDGER_SCHEMA_MISMATCH'
  | 'LEDGER_NEEDS_MIGRATION'
  | 'LEDGER_MIGRATION_FAILED'
  | 'LEDGER_IN_USE'

/**
 * The ledger file cannot be used: it cannot be opened, is not a stockroute ledger, was written by
 * a newer stockroute (`LEDGER_TOO_NEW`), a migration failed (the file is left at the last
 * version that applied), or another live process writes it (`LEDGER_IN_USE`, whose details are
 * that owner's pid, host, command, since and control URL).
 *
 * @example
 * try {
 *   openLedger({ path })
 * } catch (error) {
 *   if (error instanceof LedgerError && error.code === 'LEDGER_TOO_NEW') console.error(error.shortMessage)
 * }
 */
export class LedgerError extends StockrouteError {
  override name = 'LedgerError'
  override readonly code: LedgerErrorCode
  constructor(parameters: {
    code: LedgerErrorCode
    shortMessage: string
    /** What to do, when `shortMessage` does not say it. */
    remedy?: string | undefined
    details: Readonly<Record<string, unknown>>
    metaMessages?: readonly string[]
    cause?: unknown
  }) {
    super(parameters)
    this.code = parameters.code
  }
}
