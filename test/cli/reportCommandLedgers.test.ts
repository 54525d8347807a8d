import { linkSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse } from 'csv-parse/sync'
import { parseUnits } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Report } from '../../src/report/index.js'
import { type CliRun, runStockroute } from '../helpers/processes.js'
import { type ShardEvent, shardChains, writeShardLedger } from '../report/shardLedgers.js'

// `stockroute report <name> --ledger A --ledger B` through the built CLI: two daemons' ledgers
// (each `…/data/stockroute.sqlite`, written through the ledger's repositories) read as one report,
// its figures the sums of each ledger's own report (`--ledger A` alone), each listed row naming its
// ledger; and the clear refusals: a missing file (4), a file that is not a ledger (7), the same
// ledger twice (2).

const dir = mkdtempSync(join(tmpdir(), 'stockroute-cli-ledgers-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))
const configPath = join(dir, 'stockroute.json')
const eu = join(dir, 'eu', 'data', 'stockroute.sqlite')
const us = join(dir, 'us', 'data', 'stockroute.sqlite')
const t0 = Date.UTC(2026, 10, 20, 9, 0, 0)
const hour = 3_600_000

const euEvents: ShardEvent[] = [
  {
    kind: 'trade',
    at: t0,
    token: 'AAPL',
    side: 'buy',
    stock: 10n,
    asset: 1_502_500_000n,
    fee: 1_500_000n,
    strategy: 'dca',
  },
  {
    kind: 'trade',
    at: t0 + 2 * hour,
    token: 'MSFT',
    side: 'buy',
    stock: 2n,
    asset: 800_800_000n,
    fee: 800_000n,
  },
  {
    kind: 'trade',
    at: t0 + 5 * hour,
    token: 'MSFT',
    side: 'sell',
    stock: 1n,
    asset: 409_590_000n,
    fee: 410_000n,
  },
]
const usEvents: ShardEvent[] = [
  {
    kind: 'trade',
    at: t0 + hour,
    token: 'AAPL',
    side: 'buy',
    stock: 4n,
    asset: 604_604_000n,
    fee: 604_000n,
    strategy: 'dca',
  },
  {
    kind: 'trade',
    at: t0 + 3 * hour,
    token: 'TSLA',
    side: 'buy',
    stock: 500_000_000_000_000_000n,
    asset: 125_125_000_000_000_000_000n,
    fee: 125_000_000_000_000_000n,
  },
  { kind: 'refused', at: t0 + 4 * hour, token: 'AAPL', state: 'rejected', reason: 'kill switch: halted' },
]

beforeAll(() => {
  // The config only gives FX rates and the service for prices (--offline: none asked).
  const address = `0x${'11'.repeat(20)}`
  writeFileSync(
    configPath,
    JSON.stringify({
      service: { baseUrl: 'http://127.0.0.1:9' },
      chains: Object.values(shardChains).map((chain) => ({
        chainId: chain.chainId,
        rpcUrl: 'http://127.0.0.1:9',
        executorAddress: address,
        operatorAddress: address,
      })),
      dataDir: 'data',
    }),
  )
  for (const [path, events] of [
    [eu, euEvents],
    [us, usEvents],
  ] as const) {
    mkdirSync(join(path, '..'), { recursive: true })
    writeShardLedger(path, events)
  }
})

const stockroute = (...args: string[]) => runStockroute([...args, '--config', configPath, '--offline'])
const ok = (run: CliRun) => {
  expect(run.stderr.replace(/^wrote .*\n/gm, ''), run.stderr).toBe('')
  expect(run.code, run.stderr).toBe(0)
}
const tableOf = (report: Report, key: string) => {
  const table = report.tables.find((candidate) => candidate.key === key)
  if (!table) throw new Error(`no table ${key}`)
  return table
}
const units = (value: unknown) => parseUnits(String(value), 6)

describe('stockroute report --ledger', () => {
  it('reads several ledgers as one report: sums of each one’s, rows naming their ledger, in every format', async () => {
    const csv = join(dir, 'fills.csv')
    const html = join(dir, 'pnl.html')
    const [both, euOnly, usOnly, fillsText, fillsCsv, pnlHtml] = await Promise.all([
      stockroute('report', 'pnl', '--ledger', eu, '--ledger', us, '--json'),
      stockroute('report', 'pnl', '--ledger', eu, '--json'),
      stockroute('report', 'pnl', '--ledger', us, '--json'),
      stockroute('report', 'fills', '--ledger', eu, '--ledger', us),
      stockroute('report', 'fills', '--ledger', eu, '--ledger', us, '--table', 'fills', '--csv', csv),
      stockroute('report', 'pnl', '--ledger', eu, '--ledger', us, '--html', html),
    ])
    for (const run of [both, euOnly, usOnly, fillsText, fillsCsv, pnlHtml]) ok(run)

    const merged = JSON.parse(both.stdout) as Report
    expect(merged.ledgers).toEqual(['eu', 'us'])
    const singles = [euOnly, usOnly].map((run) => JSON.parse(run.stdout) as Report)
    for (const single of singles) expect(single.ledgers).toBeUndefined()
    // Chain A (6 decimals, shown exactly): every figure is the sum of the two ledgers'.
    const chainA = (report: Report) =>
      tableOf(report, 'pnl').rows.find((row) => row.chain_id === shardChains.A.chainId) ?? {}
    for (const column of ['realized_pnl', 'fees', 'bought', 'sold', 'buys', 'sells'])
      expect(units(chainA(merged)[column]), column).toBe(
        singles.reduce((sum, single) => sum + units(chainA(single)[column] ?? '0'), 0n),
      )
    expect(tableOf(merged, 'pnl').rows.find((row) => row.chain_id === shardChains.B.chainId)).toMatchObject({
      bought: '125.125',
      buys: 1,
    })

    const lines = fillsText.stdout.split('\n')
    for (const line of lines) expect(line.length, line).toBeLessThanOrEqual(120)
    expect(lines).toContainEqual(expect.stringMatching(/^LEDGER +FILL +BLOCK TIME/))
    const listed = lines.filter((line) => /^(eu|us) /.test(line)).map((line) => line.split(/ {2,}/)[0])
    expect(listed).toEqual(['eu', 'us', 'eu', 'us', 'eu'])

    const records = parse(readFileSync(csv), { columns: true }) as Record<string, string>[]
    expect(records.map((record) => [record.ledger, record.ticker, record.side])).toEqual([
      ['eu', 'AAPL', 'buy'],
      ['us', 'AAPL', 'buy'],
      ['eu', 'MSFT', 'buy'],
      ['us', 'TSLA', 'buy'],
      ['eu', 'MSFT', 'sell'],
    ])
    expect(readFileSync(html, 'utf8')).toContain(`Merged from 2 ledgers: eu (${eu}), us (${us}).`)
  })

  it('refuses a missing file (4), a file that is not a ledger (7), a folder (7) and the same ledger twice (2)', async () => {
    const text = join(dir, 'notes.txt')
    writeFileSync(text, 'not a ledger\n')
    const hardLink = join(dir, 'eu-link.sqlite')
    linkSync(eu, hardLink)
    const [missing, notLedger, folder, twice, linked] = await Promise.all([
      stockroute('report', 'summary', '--ledger', eu, '--ledger', join(dir, 'nope.sqlite')),
      stockroute('report', 'summary', '--ledger', eu, '--ledger', text),
      stockroute('report', 'summary', '--ledger', join(dir, 'eu')),
      stockroute('report', 'summary', '--ledger', eu, '--ledger', `${dir}/eu/../eu/data/./stockroute.sqlite`),
      stockroute('report', 'summary', '--ledger', eu, '--ledger', hardLink),
    ])
    expect(missing.code, missing.stderr).toBe(4)
    expect(missing.stderr).toContain(`--ledger ${join(dir, 'nope.sqlite')}: there is no such file`)
    expect(notLedger.code, notLedger.stderr).toBe(7)
    expect(notLedger.stderr).toContain(text)
    expect(folder.code, folder.stderr).toBe(7)
    expect(folder.stderr).toContain('is not a ledger: it is a folder')
    for (const run of [twice, linked]) {
      expect(run.code, run.stderr).toBe(2)
      expect(run.stderr).toContain('are the same file: each ledger is read once')
    }
    for (const run of [missing, notLedger, folder, twice, linked]) expect(run.stdout).toBe('')
  })
})
