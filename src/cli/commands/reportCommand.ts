import { type Command, InvalidArgumentError } from 'commander'
import { defaultListLimit, reportNames } from '../../report/types.js'
import { configHelp } from '../defaultConfigPath.js'
import { lazyAction } from '../lazyAction.js'
import { parseChainId, parsePositiveInteger, parseTicker } from '../options.js'
import { parseStrategyOption } from '../parseStrategyOption.js'
import { parseTimeOption } from '../parseTimeOption.js'

/**
 * `stockroute report <name> [--ledger FILE]… [--chain ID] [--ticker T] [--strategy ID] [--since T]
 * [--until T] [--table KEY] [--wide] [--json | --csv FILE|-] [--html FILE]`: a report of the
 * config's ledger, or of the `--ledger` files instead (several: one report over them all, each row
 * of a list naming its ledger), opened read-only (so it works whether or not the daemon runs, and
 * never writes). Prints the
 * report as a terminal table (fitting 120 columns; `--wide`: every column whole), or as JSON
 * (`--json`) or CSV (`--csv -`, one table: choose it with `--table`) on stdout; `--csv FILE`
 * writes `FILE` for a report of one table and `FILE-<key>.csv` (a `.csv` extension moved to the
 * end) for each table of a report of several; `--html FILE` writes one
 * self-contained page with charts. A bad option, filter or report name exits with the usage code (2). The
 * ledger and the reports are loaded only when the command runs (./reportAction.ts).
 *
 * @example
 * registerReportCommand(program)
 * // stockroute report fills --chain 31337 --since 2d --csv fills.csv --config ./sbx/stockroute.json
 */
export function registerReportCommand(program: Command) {
  program
    .command('report')
    .description(`a report of the ledger (read-only, with or without a daemon): ${reportNames.join(', ')}`)
    .argument('<name>', `the report: ${reportNames.join(', ')}`, parseReportName)
    .option('--config <file>', configHelp('the config whose ledger to read (no secrets needed)'))
    .option(
      '--ledger <file>',
      "read this ledger file instead of the config's (repeat it for one report over several ledgers; the config still gives FX rates and the service for prices)",
      collectLedger,
    )
    .option('--chain <id>', 'only this chain', parseChainId)
    .option('--ticker <ticker>', 'only this ticker', parseTicker)
    .option('--strategy <id>', "only this strategy's executions and fills", parseStrategyOption)
    .option(
      '--since <time>',
      'from this time on: ISO 8601 (2026-11-25T10:00Z) or an age (30m, 6h, 2d)',
      parseTimeOption,
    )
    .option('--until <time>', 'before this time: ISO 8601 or an age (30m, 6h, 2d)', parseTimeOption)
    .option('--table <key>', 'only this table of the report (its key, as in the JSON output)')
    .option(
      '--limit <n>',
      `executions and fills: list the newest N selected (default ${defaultListLimit}); counts and sums cover all`,
      parsePositiveInteger,
    )
    .option('--all', 'executions and fills: list every row selected (slower on a large ledger)')
    .option('--offline', 'price open positions at their last fill, without asking the service')
    .option(
      '--wide',
      'terminal table: every column and value whole (by default it fits 120 columns and names what it leaves out)',
    )
    .option('--json', 'print the report as JSON on stdout')
    .option(
      '--csv <file>',
      'write CSV: FILE (one table) or FILE-<key>.csv per table; - for stdout (one table)',
    )
    .option('--html <file>', 'write one self-contained HTML page with charts')
    .action(lazyAction(() => import('./reportAction.js'), 'runReportCommand'))
}

/** Each `--ledger` adds its file, in the order given. */
function collectLedger(file: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), file]
}

// The names of src/report/types.ts, each of which has its query in src/report/index.ts (whose
// availableReports() would load every query and renderer): the action refuses one without.
function parseReportName(text: string): string {
  const names: readonly string[] = reportNames
  if (!names.includes(text))
    throw new InvalidArgumentError(`there is no report "${text}": the reports are ${names.join(', ')}`)
  return text
}
