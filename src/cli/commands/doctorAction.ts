import { type DoctorReport, loadDoctorConfig, runDoctor } from '../doctor/index.js'
import { exitCodes } from '../exitCodes.js'
import { formatTable } from '../formatTable.js'
import { withInterrupt } from '../interrupt.js'
import { printResult } from '../printResult.js'

/**
 * What `stockroute doctor` runs (its options: ./doctorCommand.ts): every check, one line each. Exit
 * codes (../exitCodes.ts): `config` when the config cannot be read, `unreachable` when an embedded
 * config's sandbox is not running or a check fails.
 */
export async function runDoctorCommand(options: { config: string; json?: boolean; timeout?: number }) {
  const loaded = loadDoctorConfig(options.config)
  if (loaded.kind === 'unusable') {
    printReport(options.json, loaded.report)
    process.exitCode = loaded.reason === 'invalid' ? exitCodes.config : exitCodes.unreachable
    return
  }
  const report = await withInterrupt((signal) =>
    runDoctor(loaded.config, { signal, timeoutMs: options.timeout }),
  )
  printReport(options.json, report)
  process.exitCode = report.ok ? exitCodes.ok : exitCodes.unreachable
}

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
