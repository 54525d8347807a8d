import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { parse as parseCsv } from 'csv-parse/sync'
import { parseUnits } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  availableReports,
  type MarketPriceBook,
  type Report,
  type ReportFilter,
  type ReportValue,
  renderReportJson,
  renderReportPage,
  renderReportText,
  renderTableCsv,
  runReport,
  runReportAcrossLedgers,
} from '../../src/report/index.js'
import { type Ledger, openLedger } from '../../src/store/index.js'
import {
  type ShardEvent,
  shardChains,
  shardTokens,
  stageDurations,
  writeShardLedger,
} from './shardLedgers.js'

// A report over several ledgers (`stockroute report --ledger a --ledger b`) against two oracles
// computed without the merge code: (1) the report of ONE ledger into which the same events were
// written (the shards hold the same token only bought, so one ledger accounts them alike), and
// (2) the reports of each ledger alone, their figures added up here (three shards, one of which
// sells a token the others hold: the note says the pooled figures may differ, and realized plus
// unrealized PnL still equals the one ledger's).

const t0 = Date.UTC(2026, 10, 20, 9, 0, 0)
const hour = 3_600_000
const day = 24 * hour
const now = t0 + 4 * day
const A = shardChains.A.chainId
const B = shardChains.B.chainId

const eventsA: ShardEvent[] = [
  {
    kind: 'trade',
    at: t0,
    token: 'AAPL',
    side: 'buy',
    stock: 10n,
    asset: 1_502_500_000n,
    fee: 1_500_000n,
    strategy: 'dca',
    marketPrice: 150_00000000n,
  },
  {
    kind: 'trade',
    at: t0 + hour,
    token: 'MSFT',
    side: 'buy',
    stock: 4n,
    asset: 1_601_600_000n,
    fee: 1_600_000n,
    strategy: 'momentum',
    marketPrice: 400_00000000n,
  },
  {
    kind: 'trade',
    at: t0 + 2 * hour,
    token: 'TSLA',
    side: 'buy',
    stock: 1_500_000_000_000_000_000n,
    asset: 375_123_456_789_012_345_678n,
    fee: 374_999_999_999_999_999n,
    strategy: 'dca',
  },
  {
    kind: 'trade',
    at: t0 + day,
    token: 'MSFT',
    side: 'sell',
    stock: 3n,
    asset: 1_260_737_000n,
    fee: 1_263_000n,
    strategy: 'momentum',
    marketPrice: 421_00000000n,
  },
  {
    kind: 'refused',
    at: t0 + day + hour,
    token: 'AAPL',
    state: 'rejected',
    reason: 'risk limit: daily notional',
    strategy: 'dca',
  },
  {
    kind: 'dividend',
    at: t0 + day + 2 * hour,
    token: 'AAPL',
    amount: 2_500_000n,
    quantity: 10n,
    reference: 'div-aapl-a',
  },
  { kind: 'split', at: t0 + 2 * day, token: 'MSFT', numerator: 2n, denominator: 1n, reference: 'split-msft' },
]
const eventsB: ShardEvent[] = [
  {
    kind: 'trade',
    at: t0 + hour / 2,
    token: 'AAPL',
    side: 'buy',
    stock: 5n,
    asset: 760_123_457n,
    fee: 760_000n,
    strategy: 'dca',
    marketPrice: 152_00000000n,
  },
  {
    kind: 'trade',
    at: t0 + 1.5 * hour,
    token: 'TSLA',
    side: 'buy',
    stock: 250_000_000_000_000_000n,
    asset: 63_987_654_321_987_654_321n,
    fee: 63_000_000_000_000_000n,
  },
  {
    kind: 'trade',
    at: t0 + day + hour / 2,
    token: 'HK0700',
    side: 'buy',
    stock: 100n,
    asset: 5_123_456_789_123_456_789_012n,
    fee: 5_118_000_000_000_000_000n,
    strategy: 'hk',
  },
  {
    kind: 'refused',
    at: t0 + day + 3 * hour,
    token: 'TSLA',
    state: 'failed',
    reason: 'simulation failed: execution reverted',
  },
  {
    kind: 'dividend',
    at: t0 + 2 * day + hour,
    token: 'TSLA',
    amount: 1_234_567_890_123_456_789n,
    quantity: 250_000_000_000_000_000n,
    reference: 'div-tsla-b',
  },
  { kind: 'halt', at: t0 + 2 * day + 2 * hour, reason: 'operator: shard b maintenance' },
]
const eventsC: ShardEvent[] = [
  {
    kind: 'trade',
    at: t0 + 3 * hour,
    token: 'AAPL',
    side: 'buy',
    stock: 6n,
    asset: 900_000_000n,
    fee: 900_000n,
    strategy: 'dca',
  },
  {
    kind: 'trade',
    at: t0 + day + 4 * hour,
    token: 'AAPL',
    side: 'sell',
    stock: 2n,
    asset: 301_200_000n,
    fee: 300_000n,
    strategy: 'dca',
    marketPrice: 151_00000000n,
  },
]

const dir = mkdtempSync(join(tmpdir(), 'stockroute-shards-'))
const ledgers: Record<'a' | 'b' | 'c' | 'ab' | 'abc', Ledger> = {} as never
beforeAll(() => {
  const files = {
    a: eventsA,
    b: eventsB,
    c: eventsC,
    ab: [...eventsA, ...eventsB],
    abc: [...eventsA, ...eventsB, ...eventsC],
  }
  for (const [name, events] of Object.entries(files)) {
    const path = join(dir, `${name}.sqlite`)
    writeShardLedger(path, events)
    ledgers[name as keyof typeof ledgers] = openLedger({ path, readonly: true })
  }
})
afterAll(() => {
  for (const ledger of Object.values(ledgers)) ledger.close()
  rmSync(dir, { recursive: true, force: true })
})

/** The market at fixed prices, so that every ledger values a token alike. */
const prices: MarketPriceBook = new Map([
  ['0:AAPL', { price: '155', currency: 'USD', atMs: now }],
  ['0:MSFT', { price: '410.5', currency: 'USD', atMs: now }],
  ['0:TSLA', { price: '250', currency: 'USD', atMs: now }],
  ['1:0700', { price: '400', currency: 'HKD', atMs: now }],
])

type Names = readonly ('a' | 'b' | 'c')[]
const merged = (name: string, names: Names, filter: ReportFilter = {}, marketPrices?: MarketPriceBook) =>
  runReportAcrossLedgers(
    name,
    names.map((shard) => ({ name: `${shard}.sqlite`, database: ledgers[shard].database })),
    { now: () => now, marketPrices },
    filter,
  )
const single = (
  name: string,
  shard: keyof typeof ledgers,
  filter: ReportFilter = {},
  marketPrices?: MarketPriceBook,
) => runReport(name, { ledger: ledgers[shard], now: () => now, marketPrices }, filter)

type Row = Readonly<Record<string, ReportValue>>
const rowsOf = (report: Report, key: string): readonly Row[] => {
  const table = report.tables.find((candidate) => candidate.key === key)
  if (!table) throw new Error(`no table ${key} in the ${report.name} report`)
  return table.rows
}
const without = (rows: readonly Row[], keys: readonly string[]) =>
  rows.map((row) => Object.fromEntries(Object.entries(row).filter(([key]) => !keys.includes(key))))

/** The columns each ledger numbers on its own (ids), and those naming the ledgers. */
const ownColumns = ['ledger', 'ledgers', 'id', 'execution_id']
const killSwitchColumns = ['kill_switch', 'kill_switch_reason', 'kill_switch_changed_at']

describe('a report over several ledgers equals the report of one ledger holding all their events', () => {
  const filters: [string, ReportFilter][] = [
    ['everything', {}],
    ['one chain', { chainId: A }],
    ['a ticker', { ticker: 'AAPL' }],
    ['a strategy', { strategy: 'dca' }],
    ['a window cutting days', { sinceMs: t0 + hour, untilMs: t0 + day + 150 * 60_000 }],
    ['the newest 3 rows of the lists', { limit: 3 }],
  ]
  for (const [label, filter] of filters)
    it(`every report and table: ${label}`, () => {
      for (const name of availableReports()) {
        const over = merged(name, ['a', 'b'], filter)
        const one = single(name, 'ab', filter)
        expect(
          over.tables.map((table) => table.key),
          name,
        ).toEqual(one.tables.map((table) => table.key))
        for (const table of one.tables) {
          const ignored =
            name === 'summary' && table.key === 'run' ? [...ownColumns, ...killSwitchColumns] : ownColumns
          expect(without(rowsOf(over, table.key), ignored), `${name} ${table.key}`).toEqual(
            without(table.rows, ignored),
          )
          const overColumns = over.tables.find((candidate) => candidate.key === table.key)?.columns ?? []
          const naming = (column: { key: string }) => column.key === 'ledger' || column.key === 'ledgers'
          expect(overColumns.filter((column) => !naming(column))).toEqual(table.columns)
        }
      }
    })

  it('has the amounts that 18 decimals would round if added after formatting', () => {
    // 375.123456789012345678 + 63.987654321987654321 = 439.111111110999999999: shown 439.111111,
    // while the two shown values add up to 439.111112.
    const tsla = rowsOf(merged('positions', ['a', 'b']), 'positions').find((row) => row.ticker === 'TSLA')
    expect(tsla?.cost_basis).toBe('439.111111')
    expect(
      rowsOf(single('positions', 'a'), 'positions').find((row) => row.ticker === 'TSLA')?.cost_basis,
    ).toBe('375.123457')
    expect(
      rowsOf(single('positions', 'b'), 'positions').find((row) => row.ticker === 'TSLA')?.cost_basis,
    ).toBe('63.987654')
  })

  it('names each row of a list by its ledger, and each position by the ledgers holding it', () => {
    const fills = rowsOf(merged('fills', ['a', 'b']), 'fills')
    expect(fills.map((row) => [row.ledger, row.ticker])).toEqual([
      ['a.sqlite', 'AAPL'],
      ['b.sqlite', 'AAPL'],
      ['a.sqlite', 'MSFT'],
      ['b.sqlite', 'TSLA'],
      ['a.sqlite', 'TSLA'],
      ['a.sqlite', 'MSFT'],
      ['b.sqlite', '0700'],
    ])
    const executions = merged('executions', ['a', 'b']).tables.find((table) => table.key === 'executions')
    expect(executions?.columns[0]).toEqual({ key: 'ledger', title: 'Ledger', kind: 'text' })
    expect(
      rowsOf(merged('positions', ['a', 'b']), 'positions').map((row) => [row.ticker, row.ledgers]),
    ).toEqual([
      ['AAPL', 'a.sqlite, b.sqlite'],
      ['MSFT', 'a.sqlite'],
      ['0700', 'b.sqlite'],
      ['TSLA', 'a.sqlite, b.sqlite'],
    ])
    const corporate = rowsOf(merged('income', ['a', 'b']), 'corporate_actions')
    expect(corporate.map((row) => [row.ledger, row.ticker, row.kind])).toEqual([
      ['a.sqlite', 'MSFT', 'split'],
    ])
  })

  it('says which ledgers are halted, and which ledgers it merged', () => {
    const summary = merged('summary', ['a', 'b'])
    expect(summary.ledgers).toEqual(['a.sqlite', 'b.sqlite'])
    expect(summary.notes[0]).toBe('Merged from 2 ledgers: a.sqlite, b.sqlite.')
    expect(rowsOf(summary, 'run')[0]).toMatchObject({
      kill_switch: 'halted in b.sqlite',
      kill_switch_reason: 'b.sqlite: operator: shard b maintenance',
      kill_switch_changed_at: new Date(t0 + 2 * day + 2 * hour).toISOString(),
    })
    expect(rowsOf(merged('summary', ['a', 'c']), 'run')[0]).toMatchObject({
      kill_switch: 'running',
      kill_switch_reason: null,
    })
    // Only buys of the tokens held together: nothing to warn of.
    expect(merged('positions', ['a', 'b']).notes.join('\n')).not.toContain('Held in several ledgers and sold')
  })

  it('of one ledger is that ledger’s report, without a ledger column', () => {
    for (const name of availableReports()) {
      const { generatedAt: _, ...over } = merged(name, ['a'])
      const { generatedAt: __, ...one } = single(name, 'a')
      expect(over, name).toEqual(one)
    }
  })
})

/** An amount a report shows, in base units of 18 decimals (every report amount has at most 18). */
const units = (value: ReportValue | undefined) => parseUnits(String(value ?? '0'), 18)
/** Half a unit of the sixth decimal: how far a shown 18-decimal amount is from its exact value. */
const halfSixth = 500_000_000_000n

/**
 * Expects `actual` to be the sum of `parts`: exactly for an asset of 6 decimals or fewer (shown
 * whole), else within the rounding of each shown part and of the sum itself.
 */
function expectSum(
  actual: ReportValue | undefined,
  parts: readonly (ReportValue | undefined)[],
  exact: boolean,
  label: string,
) {
  const sum = parts.reduce<bigint>((total, part) => total + units(part), 0n)
  const gap = units(actual) - sum
  const bound = exact ? 0n : halfSixth * BigInt(parts.length + 1)
  expect(gap <= bound && -gap <= bound, `${label}: ${String(actual)} vs Σ ${parts.join(' + ')}`).toBe(true)
}

/**
 * Expects each row of `actual` to add up the rows of `each` with the same key: integer and decimal
 * columns summed (decimals exactly on chain A, within rounding on chain B), other columns equal.
 */
function expectRowsAddUp(report: Report, key: string, each: readonly Report[], keyOf: (row: Row) => string) {
  const table = report.tables.find((candidate) => candidate.key === key)
  if (!table) throw new Error(`no table ${key}`)
  const parts = each.map((part) => rowsOf(part, key))
  const keys = new Set(parts.flatMap((rows) => rows.map(keyOf)))
  expect(new Set(table.rows.map(keyOf)), `${report.name} ${key} rows`).toEqual(keys)
  for (const row of table.rows) {
    const same = parts.flatMap((rows) => rows.filter((candidate) => keyOf(candidate) === keyOf(row)))
    for (const column of table.columns) {
      const label = `${report.name} ${key} ${keyOf(row)} ${column.key}`
      if (column.kind === 'integer' && !column.key.endsWith('_id'))
        expect(row[column.key], label).toBe(
          same.reduce((sum, part) => sum + Number(part[column.key] ?? 0), 0),
        )
      else if (column.kind === 'decimal')
        expectSum(
          row[column.key],
          same.map((part) => part[column.key]),
          row.chain_id !== B,
          label,
        )
    }
  }
}

describe('a report over several ledgers adds up the report of each', () => {
  const shards = ['a', 'b', 'c'] as const
  const each = (name: string, filter: ReportFilter = {}) =>
    shards.map((shard) => single(name, shard, filter, prices))
  const over = (name: string, filter: ReportFilter = {}) => merged(name, shards, filter, prices)
  /** The rows of table `key` of each shard's report, each with its shard's ledger name first. */
  const tagged = (parts: readonly Report[], key: string): Row[] =>
    parts.flatMap((part, index) =>
      rowsOf(part, key).map((row): Row => ({ ledger: `${shards[index]}.sqlite`, ...row })),
    )

  it('summary: executions, fills, volumes, fees, PnL, income and activity', () => {
    const summary = over('summary')
    const parts = each('summary')
    expectRowsAddUp(summary, 'executions_by_state', parts, (row) => String(row.state))
    // Open positions: a token open in several ledgers is one position.
    const open = new Set(
      each('positions')
        .flatMap((report) => rowsOf(report, 'positions'))
        .filter((row) => row.balance !== '0')
        .map((row) => `${row.chain_id}:${row.token_address}`),
    )
    const chains = rowsOf(summary, 'chains')
    expect(chains.map((row) => row.open_positions)).toEqual([2, 2])
    expect(chains.reduce((sum, row) => sum + Number(row.open_positions), 0)).toBe(open.size)
    const chainKey = (row: Row) => `${row.chain_id}:${row.asset_token}`
    const summed = {
      ...summary,
      tables: summary.tables.map((table) =>
        table.key === 'chains'
          ? { ...table, columns: table.columns.filter((column) => column.key !== 'open_positions') }
          : table,
      ),
    }
    expectRowsAddUp(summed, 'chains', parts, chainKey)
    const runs = parts.map((part) => rowsOf(part, 'run')[0] as Row)
    const run = rowsOf(summary, 'run')[0]
    expect(run).toMatchObject({
      executions: runs.reduce((sum, row) => sum + Number(row.executions), 0),
      fills: runs.reduce((sum, row) => sum + Number(row.fills), 0),
      open_positions: open.size,
      first_activity: runs.map((row) => String(row.first_activity)).sort()[0],
      last_activity: runs
        .map((row) => String(row.last_activity))
        .sort()
        .at(-1),
      kill_switch: 'halted in b.sqlite',
    })
  })

  it('positions: a token held in several is one position, its amounts added, its average of the sums', () => {
    const positions = rowsOf(over('positions'), 'positions')
    const parts = each('positions').map((report) => rowsOf(report, 'positions'))
    for (const row of positions) {
      const same = parts.flatMap((rows) => rows.filter((part) => part.token_address === row.token_address))
      const exact = row.chain_id !== B
      const label = String(row.ticker)
      for (const column of ['balance', 'cost_basis', 'realized_pnl', 'market_value', 'unrealized_pnl'])
        expectSum(
          row[column],
          same.map((part) => part[column]),
          exact,
          `${label} ${column}`,
        )
      // Average cost of the sums, as one ledger divides: |cost basis| / |balance| per whole share,
      // rounded down (each part's average would not do).
      const token = Object.values(shardTokens).find((candidate) => candidate.address === row.token_address)
      const shareScale = token?.kind === 'share' ? 10n ** 18n : 1n
      const balance = units(row.balance) / (10n ** 18n / shareScale)
      const costBasis = same.reduce((sum, part) => sum + units(part.cost_basis), 0n)
      if (exact)
        expect(units(row.avg_price), label).toBe(
          balance === 0n ? 0n : (((costBasis / 10n ** 12n) * shareScale) / balance) * 10n ** 12n,
        )
      expect(row.price, label).toBe(same[0]?.price)
      expect(row.ledgers, label).toBe(
        shards
          .filter((_, index) => parts[index]?.some((part) => part.token_address === row.token_address))
          .map((shard) => `${shard}.sqlite`)
          .join(', '),
      )
    }
    expect(positions.find((row) => row.ticker === 'AAPL')).toMatchObject({
      balance: '19',
      ledgers: 'a.sqlite, b.sqlite, c.sqlite',
    })
  })

  it('positions sold in one shard while held in another: says so, and realized + unrealized PnL equals one ledger’s', () => {
    const report = over('positions')
    expect(report.notes.join('\n')).toContain(
      'Held in several ledgers and sold (or split, delisted, transferred out) in one: AAPL (chain 31337).',
    )
    const aapl = rowsOf(report, 'positions').find((row) => row.ticker === 'AAPL')
    const oneLedger = rowsOf(single('positions', 'abc', {}, prices), 'positions').find(
      (row) => row.ticker === 'AAPL',
    )
    expect(aapl?.balance).toBe(oneLedger?.balance)
    // The split between realized and unrealized differs (one ledger pools the average cost)…
    expect(aapl?.realized_pnl).not.toBe(oneLedger?.realized_pnl)
    // …their total does not.
    const total = (row: Row | undefined) => units(row?.realized_pnl) + units(row?.unrealized_pnl)
    expect(total(aapl)).toBe(total(oneLedger))
    expect(over('pnl').notes.join('\n')).toContain('AAPL (chain 31337)')
    expect(over('summary').notes.join('\n')).toContain('AAPL (chain 31337)')
  })

  it('pnl: every table adds up, per asset, day, strategy and token', () => {
    const pnl = over('pnl')
    const parts = each('pnl')
    const asset = (row: Row) => `${row.chain_id}:${row.asset_token}`
    expectRowsAddUp(pnl, 'pnl', parts, asset)
    expectRowsAddUp(pnl, 'pnl_by_day', parts, (row) => `${row.day}|${asset(row)}`)
    expectRowsAddUp(pnl, 'pnl_by_strategy', parts, (row) => `${row.strategy}|${asset(row)}`)
    expectRowsAddUp(pnl, 'pnl_by_token', parts, (row) => `${row.chain_id}:${row.token_address}`)
    // A window and a strategy too.
    const filter = { strategy: 'dca', sinceMs: t0 + 2 * hour }
    expectRowsAddUp(
      over('pnl', filter),
      'pnl_by_day',
      each('pnl', filter),
      (row) => `${row.day}|${asset(row)}`,
    )
  })

  it('strategies: executions by outcome and figures added per strategy and chain', () => {
    expectRowsAddUp(
      over('strategies'),
      'strategies',
      each('strategies'),
      (row) => `${row.strategy}|${row.chain_id}`,
    )
  })

  it('executions: counts added, every ledger’s executions newest first, each naming its ledger', () => {
    const report = over('executions')
    const parts = each('executions')
    expectRowsAddUp(report, 'by_state', parts, (row) => String(row.state))
    expectRowsAddUp(report, 'by_reason', parts, (row) => `${row.state}|${row.reason_class}`)
    const expected = tagged(parts, 'executions').sort((x, y) =>
      String(y.created_at).localeCompare(String(x.created_at)),
    )
    expect(rowsOf(report, 'executions')).toEqual(expected)
    // The newest two of them all.
    expect(rowsOf(over('executions', { limit: 2 }), 'executions')).toEqual(expected.slice(0, 2))
    expect(over('executions', { limit: 2 }).notes[1]).toBe(
      `The executions table shows the newest 2 of the ${expected.length} executions selected (--all shows every one); the counts cover all ${expected.length}.`,
    )
  })

  it('fills: every ledger’s fills oldest first, each naming its ledger; slippage over them all', () => {
    const report = over('fills')
    const parts = each('fills')
    const expected = tagged(parts, 'fills').sort((x, y) => String(x.time).localeCompare(String(y.time)))
    expect(rowsOf(report, 'fills')).toEqual(expected)
    expect(rowsOf(over('fills', { limit: 3 }), 'fills')).toEqual(expected.slice(-3))
    const slippage = rowsOf(report, 'slippage')
    for (const row of slippage) {
      const fills = expected.filter((fill) => fill.chain_id === row.chain_id && fill.ticker === row.ticker)
      const market = fills.flatMap((fill) =>
        fill.slippage_vs_market_bps === null ? [] : [units(fill.slippage_vs_market_bps) / 10n ** 16n],
      )
      const mean = (values: bigint[]) => {
        if (values.length === 0) return null
        const sum = values.reduce((total, value) => total + value, 0n)
        const count = BigInt(values.length)
        const magnitude = ((sum < 0n ? -sum : sum) * 2n + count) / (2n * count)
        const centi = sum < 0n ? -magnitude : magnitude
        return (Number(centi) / 100).toString()
      }
      expect(row, String(row.ticker)).toMatchObject({
        fills: fills.length,
        fills_with_market_price: market.length,
        avg_vs_market_bps: mean(market),
        worst_vs_market_bps: market.length === 0 ? null : (Math.max(...market.map(Number)) / 100).toString(),
      })
    }
    expect(slippage.find((row) => row.ticker === 'AAPL')?.fills_with_market_price).toBe(3)
  })

  it('income: payments and corporate actions listed by time with their ledger, totals added', () => {
    const report = over('income')
    const parts = each('income')
    for (const key of ['income', 'corporate_actions']) {
      const expected = tagged(parts, key).sort((x, y) => String(x.time).localeCompare(String(y.time)))
      expect(rowsOf(report, key), key).toEqual(expected)
    }
    expectRowsAddUp(report, 'income_by_day', parts, (row) => `${row.day}|${row.chain_id}|${row.asset_token}`)
    expectRowsAddUp(report, 'corporate_action_counts', parts, (row) => String(row.kind))
  })

  it('latency: the percentiles of every execution of every ledger together', () => {
    const trades = [...eventsA, ...eventsB, ...eventsC].filter((event) => event.kind === 'trade')
    const rows = rowsOf(over('latency'), 'latency')
    const stages = ['intent → quote', 'quote → broadcast', 'broadcast → inclusion']
    for (const chain of [A, B])
      stages.forEach((stage, index) => {
        const values = trades
          .filter((event) => shardChains[shardTokens[event.token].chain].chainId === chain)
          .map((event) => stageDurations(event.at)[index] as number)
          .sort((x, y) => x - y)
        const rank = (p: number) => values[Math.max(1, Math.ceil((p * values.length) / 100)) - 1]
        expect(
          rows.find((row) => row.chain_id === chain && row.stage === stage),
          `${chain} ${stage}`,
        ).toEqual({
          chain_id: chain,
          stage,
          samples: values.length,
          p50_ms: rank(50),
          p90_ms: rank(90),
          p99_ms: rank(99),
          max_ms: values.at(-1),
          mean_ms: Math.round(values.reduce((sum, value) => sum + value, 0) / values.length),
        })
      })
    expect(rows).toHaveLength(6)
  })
})

describe('the outputs of a report over several ledgers', () => {
  it('terminal text fits 120 columns and shows the ledger column; JSON, CSV and HTML carry it', () => {
    for (const name of availableReports()) {
      const report = merged(name, ['a', 'b', 'c'], {}, prices)
      const text = renderReportText(report)
      for (const line of text.split('\n')) expect(line.length, `${name}: ${line}`).toBeLessThanOrEqual(120)
      expect(JSON.parse(renderReportJson(report))).toEqual(JSON.parse(JSON.stringify(report)))
      expect(renderReportPage(report)).toContain('a.sqlite, b.sqlite, c.sqlite')
    }
    const fills = merged('fills', ['a', 'b', 'c'])
    expect(renderReportText(fills)).toMatch(/^LEDGER +FILL +BLOCK TIME/m)
    const table = fills.tables.find((candidate) => candidate.key === 'fills')
    if (!table) throw new Error('no fills table')
    const records = parseCsv(renderTableCsv(table), { columns: true }) as Record<string, string>[]
    expect(records.map((record) => record.ledger)).toEqual(table.rows.map((row) => row.ledger))
    expect(renderReportText(fills, { wide: true })).toContain('a.sqlite')
  })
})
