import type { Command } from 'commander'
import { type DoctorReport, loadDoctorConfig, runDoctor } from '../doctor/index.js'
import { formatTable } from '../formatTable.js'
import { withInterrupt } from '../interrupt.js'
import { parsePositiveInteger } from '../options.js'
import { printResult, withServiceOptions } from '../serviceClient.js'

/**
 * `stockroute doctor [--config FILE] [--json]`: checks a deployment before it trades (config and
 * secrets, service reachability, clock skew, API key, and per chain the pinned executor and
 * operator, RPC, executor code, gas, asset and allowance). Prints one line per check (or JSON
 * `{checks, ok}`); exit code 0 when no check fails (warnings allowed), 1 when one fails, 2 when
 * the config cannot be checked (invalid, secrets missing, or an embedded sandbox).
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
    .action(async (options: { config: string; json?: boolean; timeout?: number }) => {
      const loaded = loadDoctorConfig(options.config)
      if (loaded.kind === 'unusable') {
        printReport(options.json, loaded.report)
        process.exitCode = 2
        return
      }
      const report = await withInterrupt((signal) =>
        runDoctor(loaded.config, { signal, timeoutMs: options.timeout }),
      )
      printReport(options.json, report)
      process.exitCode = report.ok ? 0 : 1
    })
}

/** Scripts (CI, deploy hooks) branch on these; keep them in step with the action below. */
export const doctorExitCodesHelp = `
Exit codes:
  0  no check failed (warnings allowed)
  1  at least one check failed: fix what its FAIL line says (a halted kill switch fails too);
     also a usage error, such as an unknown option
  2  the config cannot be checked: not found, invalid, a secret missing, or an embedded sandbox
     (config/default.json names no service)`

const statusLabel = { ok: 'ok', warn: 'WARN', fail: 'FAIL' } as const

function printReport(json: boolean | undefined, report: DoctorReport): void {
  printResult(json, report, () => {
    const count = (status: 'warn' | 'fail') => report.checks.filter((check) => check.status === status).length
    const failures = count('fail')
    const warnings = count('warn')
    const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`
    const summary = report.ok
      ? `doctor: ${plural(report.checks.length, 'check')}, no failure${warnings > 0 ? `, ${plural(warnings, 'warning')}` : ''}`
      : `doctor: ${plural(failures, 'failure')}${warnings > 0 ? `, ${plural(warnings, 'warning')}` : ''} in ${plural(report.checks.length, 'check')}: fix what the FAIL lines say, then run doctor again`
    return [
      formatTable(
        [
          { header: 'CHECK' },
          { header: 'CHAIN', align: 'right' },
          { header: 'STATUS' },
          { header: 'MESSAGE' },
        ],
        report.checks.map((check) => [
          check.name,
          check.chainId === undefined ? '' : String(check.chainId),
          statusLabel[check.status],
          check.message,
        ]),
      ),
      '',
      summary,
    ].join('\n')
  })
}
