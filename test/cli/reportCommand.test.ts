import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse } from 'csv-parse/sync'
import { generatePrivateKey } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { availableReports, csvTargetsOf, type Report } from '../../src/report/index.js'
import { createTestEngine } from '../helpers/engine.js'
import { chainWithRouter, localChains } from '../helpers/localChains.js'
import { type CliRun, runStockroute } from '../helpers/processes.js'
import { useSandboxService } from '../helpers/sandboxService.js'

// `stockroute report <name>` as an operator runs it on a ledger made by real trades (no daemon
// runs: the ledger is opened read-only), in each output format; bad filters exit with code 2.

const service = useSandboxService()
const dir = mkdtempSync(join(tmpdir(), 'stockroute-cli-report-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const configPath = join(dir, 'stockroute.json')
const ledgerPath = join(dir, 'data', 'stockroute.sqlite')

beforeAll(async () => {
  // Nothing is contacted by the report command: the config only names the ledger.
  writeFileSync(
    configPath,
    JSON.stringify({
      service: { baseUrl: 'http://127.0.0.1:9' },
      chains: localChains().map((chain) => ({
        chainId: chain.chainId,
        rpcUrl: 'http://127.0.0.1:9',
        executorAddress: chain.executorAddress,
        operatorAddress: chain.operatorAddress,
      })),
      dataDir: 'data',
    }),
  )
  mkdirSync(join(dir, 'data'))
  const test = await createTestEngine(service(), { ledgerPath, funding: { asset: '5000' } })
  try {
    for (const [index, amountIn] of ['300', '500'].entries()) {
      const outcome = await test.engine.execute({
        intentId: `cli-report-${index}`,
        chainId: chainWithRouter().chainId,
        ticker: 'AAPL',
        exchange: 0,
        side: 'buy',
        amountIn,
        strategy: 'dca',
      })
      expect(outcome.execution.state, outcome.execution.reason).toBe('confirmed')
    }
  } finally {
    await test.close()
  }
})

const stockroute = (...args: string[]) => runStockroute([...args, '--config', configPath])

/** Runs a few CLI processes at a time (two cores). */
async function inBatches<T>(jobs: readonly (() => Promise<T>)[], size = 4): Promise<T[]> {
  const results: T[] = []
  for (let at = 0; at < jobs.length; at += size)
    results.push(...(await Promise.all(jobs.slice(at, at + size).map((job) => job()))))
  return results
}

const ok = (run: CliRun) => {
  expect(run.stderr.replace(/^wrote .*\n/gm, ''), run.stderr).toBe('')
  expect(run.code, run.stderr).toBe(0)
}

describe('stockroute report', () => {
  it('prints every report as a table and as JSON, and writes CSV and HTML files that say the same', async () => {
    const names = availableReports()
    expect(names).toEqual(expect.arrayContaining(['executions', 'fills', 'latency']))
    const runs = await inBatches(
      names.flatMap((name) => [
        () => stockroute('report', name),
        () =>
          stockroute(
            'report',
            name,
            '--json',
            '--csv',
            join(dir, `${name}.csv`),
            '--html',
            join(dir, `${name}.html`),
          ),
      ]),
    )
    names.forEach((name, index) => {
      const [text, files] = [runs[2 * index], runs[2 * index + 1]]
      if (!text || !files) throw new Error('missing run')
      ok(text)
      ok(files)
      expect(text.stdout.startsWith(`${name} report, generated `)).toBe(true)
      const report = JSON.parse(files.stdout) as Report
      expect(report.name).toBe(name)
      for (const table of report.tables) expect(text.stdout).toContain(`\n${table.title}\n`)
      // One CSV per table; read back, the rows are the JSON's.
      const targets = csvTargetsOf(report, join(dir, `${name}.csv`))
      expect(files.stderr).toContain(`wrote ${join(dir, `${name}.html`)}`)
      for (const { tableKey, path } of targets) {
        expect(files.stderr).toContain(`wrote ${path}`)
        const table = report.tables.find((candidate) => candidate.key === tableKey)
        const keys = table?.columns.map((column) => column.key) ?? []
        const records = parse(readFileSync(path, 'utf8'), { columns: true }) as Record<string, string>[]
        expect(records).toEqual(
          table?.rows.map((row) =>
            Object.fromEntries(keys.map((key) => [key, row[key] === null ? '' : String(row[key])])),
          ),
        )
      }
      const html = readFileSync(join(dir, `${name}.html`), 'utf8')
      expect(html.startsWith('<!doctype html>')).toBe(true)
      // uPlot inlined, a chart drawn by it, and nothing fetched: no src/href/link outside the inlined code.
      expect(html).toContain('uPlot')
      expect(html).toContain("default-src 'none'")
      const markup = html.replace(/<script>[\s\S]*?<\/script>/g, '').replace(/<style>[\s\S]*?<\/style>/g, '')
      expect(markup).not.toMatch(/https?:|<script|<link|\bsrc=|\bhref=/i)
      for (const table of report.tables) expect(html).toContain(`data-table="${table.key}"`)
    })
  }, 180_000)

  it('reads the real trades, filters them, and prints one table as CSV on stdout', async () => {
    const chainId = String(chainWithRouter().chainId)
    const [fills, none, csv, executions] = await inBatches([
      () =>
        stockroute(
          'report',
          'fills',
          '--chain',
          chainId,
          '--ticker',
          'AAPL',
          '--strategy',
          'dca',
          '--since',
          '1h',
          '--json',
        ),
      () => stockroute('report', 'fills', '--until', '2020-01-01T00:00Z', '--json'),
      () => stockroute('report', 'executions', '--table', 'by_state', '--csv', '-'),
      () => stockroute('report', 'executions', '--strategy', 'dca', '--json'),
    ])
    for (const run of [fills, none, csv, executions]) if (run) ok(run)
    const fillRows = (JSON.parse(fills?.stdout ?? '') as Report).tables[0]?.rows ?? []
    expect(fillRows.map((row) => [row.ticker, row.side, row.slippage_vs_quote_bps])).toEqual([
      ['AAPL', 'buy', '0'],
      ['AAPL', 'buy', '0'],
    ])
    expect((JSON.parse(fills?.stdout ?? '') as Report).filter).toMatchObject({
      chainId: Number(chainId),
      ticker: 'AAPL',
      strategy: 'dca',
    })
    expect((JSON.parse(none?.stdout ?? '') as Report).tables[0]?.rows).toEqual([])
    expect(csv?.stdout).toBe('state,executions,share_pct\r\nconfirmed,2,100\r\n')
    expect((JSON.parse(executions?.stdout ?? '') as Report).tables[0]?.rows).toEqual([
      { state: 'confirmed', executions: 2, share_pct: '100' },
    ])
  }, 180_000)

  it("prices open positions at the service's latest market quote when it answers, at the last fill offline", async () => {
    // The same ledger under a config naming the live sandbox service and its key.
    const live = join(dir, 'live')
    mkdirSync(live)
    writeFileSync(
      join(live, 'stockroute.json'),
      JSON.stringify({
        ...JSON.parse(readFileSync(configPath, 'utf8')),
        service: { baseUrl: service().url },
        dataDir: join(dir, 'data'),
      }),
    )
    writeFileSync(
      join(live, '.env'),
      `STOCKROUTE_API_KEY=${service().credential.apiKey}\nSTOCKROUTE_API_SECRET=${service().credential.apiSecret}\nSTOCKROUTE_PRIVATE_KEY=${generatePrivateKey()}\n`,
    )
    const liveConfig = join(live, 'stockroute.json')
    const [priced, offline, unreachable] = await Promise.all([
      runStockroute(['report', 'positions', '--json', '--config', liveConfig]),
      runStockroute(['report', 'positions', '--json', '--offline', '--config', liveConfig]),
      stockroute('report', 'positions', '--json'),
    ])
    for (const run of [priced, offline, unreachable]) ok(run)
    const sourceOf = (run: CliRun) => {
      const report = JSON.parse(run.stdout) as Report
      return { sources: report.tables[0]?.rows.map((row) => row.price_source), note: report.notes.at(-1) }
    }
    expect(sourceOf(priced)).toEqual({
      sources: ['market'],
      note: expect.stringMatching(/^prices: the service's latest market quotes/),
    })
    expect(sourceOf(offline)).toEqual({
      sources: ['last fill'],
      note: expect.stringMatching(/^prices offline \(--offline\)/),
    })
    // The first config has no key for the service: offline, and it says why.
    expect(sourceOf(unreachable)).toEqual({
      sources: ['last fill'],
      note: expect.stringMatching(/^prices offline \(/),
    })
  })

  it('refuses a bad filter, report name or output with a clear message and exit code 2; --version', async () => {
    const [badTime, badChain, emptyWindow, badName, badTable, manyTables, twoStdouts, version] =
      await inBatches([
        () => stockroute('report', 'executions', '--since', 'yesterday'),
        () => stockroute('report', 'fills', '--chain', 'zero'),
        () => stockroute('report', 'latency', '--since', '2026-01-02T00:00Z', '--until', '2026-01-01T00:00Z'),
        () => stockroute('report', 'nosuch'),
        () => stockroute('report', 'executions', '--table', 'nope'),
        () => stockroute('report', 'executions', '--csv', '-'),
        () => stockroute('report', 'latency', '--json', '--csv', '-'),
        () => runStockroute(['--version']),
      ])
    const expectUsage = (run: CliRun | undefined, message: string) => {
      expect(run?.code, run?.stderr).toBe(2)
      expect(run?.stderr).toContain(message)
      expect(run?.stdout).toBe('')
    }
    expectUsage(badTime, "option '--since <time>' argument 'yesterday' is invalid. must be an ISO 8601 time")
    expectUsage(badChain, "option '--chain <id>' argument 'zero' is invalid. must be a chain id")
    expectUsage(emptyWindow, 'must be before --until (2026-01-01T00:00:00.000Z): the window is empty')
    expectUsage(badName, `there is no report "nosuch": the reports are ${availableReports().join(', ')}`)
    expectUsage(
      badTable,
      'the executions report has no table "nope": its tables are by_state, by_reason, executions',
    )
    expectUsage(manyTables, 'choose one with --table (by_state, by_reason, executions)')
    expectUsage(twoStdouts, '--json and --csv - both print on stdout')
    const { version: expected } = JSON.parse(
      readFileSync(join(import.meta.dirname, '..', '..', 'package.json'), 'utf8'),
    )
    expect(version?.code).toBe(0)
    expect(version?.stdout).toBe(`${expected}\n`)
  }, 180_000)
})
