import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { availableReports, type Report } from '../../src/report/index.js'
import { headerOf } from '../../src/report/render/fitTable.js'
import { type CliRun, runStockroute } from '../helpers/processes.js'
import { wideValues, writeWideLedger } from '../report/wideLedger.js'

// `stockroute report <name>` in a terminal, on a ledger of realistic widths (test/report/wideLedger.ts:
// 18-decimal amounts, long tickers, tx hashes, long error messages; no daemon, no chain): every
// line of every report fits 120 columns and says what --wide adds; `--wide` prints every column
// and value whole.

const dir = mkdtempSync(join(tmpdir(), 'stockroute-cli-wide-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const configPath = join(dir, 'stockroute.json')

beforeAll(() => {
  // An embedded-sandbox config: the report reads its ledger, asks no service, starts nothing.
  writeFileSync(configPath, JSON.stringify({ sandbox: { embedded: true }, dataDir: 'data' }))
  mkdirSync(join(dir, 'data'))
  writeWideLedger(join(dir, 'data', 'stockroute.sqlite'))
})

const stockroute = (...args: string[]) => runStockroute([...args, '--config', configPath])

/** Runs a few CLI processes at a time (two cores). */
async function inBatches<T>(jobs: readonly (() => Promise<T>)[], size = 4): Promise<T[]> {
  const results: T[] = []
  for (let at = 0; at < jobs.length; at += size)
    results.push(...(await Promise.all(jobs.slice(at, at + size).map((job) => job()))))
  return results
}

const ok = (run: CliRun | undefined): string => {
  expect(run?.stderr).toBe('')
  expect(run?.code, run?.stderr).toBe(0)
  return run?.stdout ?? ''
}

/** Per table, in order: its lines (title, header lines, rows, what --wide adds). */
const tablesOf = (text: string) => text.trimEnd().split('\n\n').slice(1, -1)

describe('stockroute report in a terminal', () => {
  it('fits 120 columns for every report and names what --wide adds; --wide prints everything whole', async () => {
    const names = availableReports()
    const runs = await inBatches(
      names.flatMap((name) => [
        () => stockroute('report', name),
        () => stockroute('report', name, '--wide'),
        () => stockroute('report', name, '--json'),
      ]),
    )
    const texts = new Map<string, { text: string; wide: string }>()
    names.forEach((name, index) => {
      const [text, wide, json] = [0, 1, 2].map((offset) => ok(runs[3 * index + offset]))
      const report = JSON.parse(json ?? '') as Report
      texts.set(name, { text: text ?? '', wide: wide ?? '' })
      expect(text?.split('\n').filter((line) => line.length > 120)).toEqual([])
      // --wide: each table's header is every column's, on one line.
      const tables = tablesOf(wide ?? '')
      report.tables.forEach((table, at) => {
        const [title, header] = tables[at]?.split('\n') ?? []
        expect(title).toBe(table.title)
        expect(header?.trim().split(/ {2,}/)).toEqual(table.columns.map(headerOf))
      })
      // By default: each table with detail columns and rows says which --wide adds.
      const defaults = tablesOf(text ?? '')
      report.tables.forEach((table, at) => {
        const detail = table.columns.filter((column) => column.wide).map(headerOf)
        if (detail.length === 0 || table.rows.length === 0) return
        expect(defaults[at]?.replace(/\n /g, ' ')).toContain(
          `(${detail.length} more column${detail.length === 1 ? '' : 's'} with --wide: ${detail.join(', ')}`,
        )
      })
    })
    const fills = texts.get('fills')
    expect(fills?.text).not.toContain(wideValues.fillTxHash)
    expect(fills?.wide).toContain(wideValues.fillTxHash)
    const executions = texts.get('executions')
    expect(executions?.text).toContain('simulation failed: ')
    expect(executions?.text).not.toContain(wideValues.reason)
    expect(executions?.wide).toContain(wideValues.reason)
    expect(texts.get('summary')?.wide).toContain(wideValues.haltReason)
    expect(texts.get('income')?.wide).toContain(wideValues.incomeReference)
  }, 180_000)

  it('documents --wide in the help', async () => {
    const help = await runStockroute(['report', '--help'])
    expect(help.code).toBe(0)
    expect(help.stdout).toMatch(/--wide +terminal table: every column and value whole/)
  })
})
