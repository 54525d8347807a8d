// Where a configuration's ledger lives: the live one and the dry runs' one, side by side.
import { join } from 'node:path'
import type { ExecutionConfig } from './configFile.js'

/** The live ledger's file name in the data directory. */
export const ledgerFileName = 'stockroute.sqlite'
/** The dry runs' ledger file name: dry runs never share the live ledger. */
export const dryRunLedgerFileName = 'stockroute.dry-run.sqlite'

/**
 * The ledger file of a configuration: `dataDir/stockroute.sqlite`, or
 * `dataDir/stockroute.dry-run.sqlite` for dry runs (`dryRun` given, else the configuration's
 * `execution.dryRun`).
 *
 * @example
 * ledgerPathOf(config, { dryRun: true }) // '/…/data/stockroute.dry-run.sqlite'
 */
export function ledgerPathOf(
  config: { dataDir: string; execution?: Pick<ExecutionConfig, 'dryRun'> | undefined },
  options: { dryRun?: boolean | undefined } = {},
): string {
  const dryRun = options.dryRun ?? config.execution?.dryRun ?? false
  return join(config.dataDir, dryRun ? dryRunLedgerFileName : ledgerFileName)
}
