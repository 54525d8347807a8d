import type { Command } from 'commander'
import { lazyAction } from '../lazyAction.js'
import { parsePositiveInteger, withServiceOptions } from '../options.js'

/**
 * `stockroute doctor [--config FILE] [--json]`: checks a deployment before it trades (config and
 * secrets, service reachability, clock skew, API key, and per chain the pinned executor and
 * operator, RPC, executor code, gas, asset and allowance). Prints one line per check (or JSON
 * `{checks, ok}`); exit code 0 when no check fails (warnings allowed), else as
 * {@link doctorExitCodesHelp} says. The checks are loaded only when the command runs (./doctorAction.ts).
 *
 * @example
 * registerDoctorCommand(program)
 * // stockroute doctor --config ./sbx/stockroute.json
 */
export function registerDoctorCommand(program: Command) {
  withServiceOptions(
    program
      .command('doctor')
      .description(
        'check a deployment: config, service, clock skew, API key, pinned addresses, RPCs, executor code, gas, balances, allowances',
      ),
  )
    .option(
      '--timeout <ms>',
      'longest wait for any one network call, ms (default 5000)',
      parsePositiveInteger,
    )
    .addHelpText('after', doctorExitCodesHelp)
    .action(lazyAction(() => import('./doctorAction.js'), 'runDoctorCommand'))
}

/** Scripts (CI, deploy hooks) branch on these: doctor's meaning of the CLI's codes (../exitCodes.ts). */
export const doctorExitCodesHelp = `
Exit codes (every command's: stockroute --help):
  0  no check failed (warnings allowed)
  2  a usage error, such as an unknown option
  3  the config cannot be checked: not found, invalid, a secret missing
  6  at least one check failed: fix what its FAIL line says (a halted kill switch fails too);
     or an embedded config (config/default.json) whose sandbox is not running: start it first`
