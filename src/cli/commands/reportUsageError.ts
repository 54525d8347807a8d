import { StockrouteError } from '@stockroute/client/domain/errors.js'

/** A report command line that cannot be run as written: exit code 2, usage (../exitCodes.ts). */
export class ReportUsageError extends StockrouteError {
  override name = 'ReportUsageError'
  declare readonly code: 'INVALID_OPTIONS'
  constructor(shortMessage: string, remedy?: string) {
    super({ code: 'INVALID_OPTIONS', shortMessage, remedy })
  }
}
