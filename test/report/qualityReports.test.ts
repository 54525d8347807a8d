import { parsePrice } from '@stockroute/client/domain/unitStrings.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ExecutionOutcome } from '../../src/engine/index.js'
import { executionsReport } from '../../src/report/queries/executions.js'
import { fillsReport } from '../../src/report/queries/fills.js'
import { latencyByRank, latencyBySorting, latencyReport } from '../../src/report/queries/latency.js'
import type { ReportContext } from '../../src/report/types.js'
import { type Ledger, openLedger } from '../../src/store/index.js'
import { createTestEngine, engineLedgers } from '../helpers/engine.js'
import { chainWithoutRouter, chainWithRouter } from '../helpers/localChains.js'
import { holdPricesAtReference } from '../helpers/pinnedPrices.js'
import { useSandboxService } from '../helpers/sandboxService.js'

// The executions, fills and latency reports on a ledger made by real trades on the sandbox (the
// service over HTTP, anvil chains). The sandbox's market is held at its reference prices while
// trading, so each fill's amounts, and every figure the reports derive from them, are worked out
// by hand here (the arithmetic in the comments), not recomputed with the reports' own formulas.

const service = useSandboxService()
const ledgers = engineLedgers()
const ledgerPath = ledgers.path('quality.sqlite')

let outcomes: Record<'aaplBuy' | 'hkBuy' | 'aaplSell' | 'limited', ExecutionOutcome>
let ledger: Ledger
let context: ReportContext

beforeAll(async () => {
  const withRouter = chainWithRouter()
  const withoutRouter = chainWithoutRouter()
  const test = await createTestEngine(service(), { ledgerPath, funding: { asset: '20000' } })
  // AAPL 227.48 USD, 0700 418.60 HKD: for the quotes and for the market price the engine reads.
  const releasePrices = holdPricesAtReference(service().context.prices)
  try {
    const aaplBuy = await test.engine.execute({
      intentId: 'q-aapl-buy',
      chainId: withRouter.chainId,
      ticker: 'AAPL',
      exchange: 0,
      side: 'buy',
      amountIn: '1000',
      strategy: 'dca',
    })
    const hkBuy = await test.engine.execute({
      intentId: 'q-0700-buy',
      chainId: withoutRouter.chainId,
      ticker: '0700',
      exchange: 1,
      side: 'buy',
      amountIn: '15000',
    })
    const aaplSell = await test.engine.execute({
      intentId: 'q-aapl-sell',
      chainId: withRouter.chainId,
      ticker: 'AAPL',
      exchange: 0,
      side: 'sell',
      amountIn: '1',
      amountType: 'stocktoken',
      strategy: 'dca',
    })
    // A buy whose limit no quote meets: the service refuses to quote it.
    const limited = await test.engine.execute({
      intentId: 'q-aapl-limited',
      chainId: withRouter.chainId,
      ticker: 'AAPL',
      exchange: 0,
      side: 'buy',
      amountIn: '100',
      limitPrice: parsePrice('0.01'),
    })
    outcomes = { aaplBuy, hkBuy, aaplSell, limited }
  } finally {
    releasePrices()
    await test.close()
  }
  ledger = openLedger({ path: ledgerPath, readonly: true })
  context = { ledger, now: () => Date.parse('2026-11-25T10:00:00Z') }
})

afterAll(() => ledger?.close())

describe('executions report', () => {
  it('counts executions by state and reason class, and lists each with its reason', () => {
    expect(outcomes.aaplBuy.execution.state, outcomes.aaplBuy.execution.reason).toBe('confirmed')
    expect(outcomes.hkBuy.execution.state, outcomes.hkBuy.execution.reason).toBe('confirmed')
    expect(outcomes.aaplSell.execution.state, outcomes.aaplSell.execution.reason).toBe('confirmed')
    expect(outcomes.limited.execution.state).toBe('rejected')
    const report = executionsReport(context, {})
    expect(report.name).toBe('executions')
    expect(report.generatedAt).toBe('2026-11-25T10:00:00.000Z')
    const [byState, byReason, list] = report.tables
    expect(byState?.rows).toEqual([
      { state: 'confirmed', executions: 3, share_pct: '75' },
      { state: 'rejected', executions: 1, share_pct: '25' },
    ])
    expect(byReason?.rows).toEqual([
      { state: 'confirmed', reason_class: 'settled', executions: 3, share_pct: '75' },
      { state: 'rejected', reason_class: 'service refused the quote', executions: 1, share_pct: '25' },
    ])
    const limited = outcomes.limited.execution
    expect(list?.rows.map((row) => row.id)).toEqual([
      limited.id,
      outcomes.aaplSell.execution.id,
      outcomes.hkBuy.execution.id,
      outcomes.aaplBuy.execution.id,
    ])
    expect(list?.rows[0]).toEqual({
      id: limited.id,
      created_at: new Date(limited.createdAtMs).toISOString(),
      chain_id: chainWithRouter().chainId,
      ticker: 'AAPL',
      side: 'buy',
      amount: '100',
      amount_unit: 'asset',
      strategy: null,
      state: 'rejected',
      reason_class: 'service refused the quote',
      reason: limited.reason,
    })
  })

  it('honours the chain, ticker, strategy and time filters', () => {
    const rowsOf = (filter: Parameters<typeof executionsReport>[1]) =>
      executionsReport(context, filter).tables[2]?.rows.map((row) => row.id)
    expect(rowsOf({ chainId: chainWithoutRouter().chainId })).toEqual([outcomes.hkBuy.execution.id])
    expect(rowsOf({ ticker: '0700' })).toEqual([outcomes.hkBuy.execution.id])
    expect(rowsOf({ strategy: 'dca' })).toEqual([
      outcomes.aaplSell.execution.id,
      outcomes.aaplBuy.execution.id,
    ])
    const hkCreated = outcomes.hkBuy.execution.createdAtMs
    expect(rowsOf({ sinceMs: hkCreated, untilMs: hkCreated + 1 })).toEqual([outcomes.hkBuy.execution.id])
    expect(rowsOf({ sinceMs: Date.now() + 60_000 })).toEqual([])
    expect(executionsReport(context, { ticker: 'NOPE' }).tables[0]?.rows).toEqual([])
  })
})

describe('fills report', () => {
  it('prices each fill and measures its slippage against its quote and the market, by hand', () => {
    const report = fillsReport(context, {})
    const [table, summary] = report.tables
    // Every quote priced at the market price (the price the engine read too), so each fill is 10
    // bps worse than the market: the fee, paid on top by a buyer, taken from a seller's proceeds.
    // The settlement pays exactly what the quote signed: no slippage against it.
    const expected = {
      // 1000 USDC at 227.48: floor(1000 / 1.001 / 227.48) = 4 shares, 909.92, fee 0.90992 (10 bps),
      // 910.82992 paid: 227.70748 a share = 227.48 × 1.001.
      aaplBuy: {
        side: 'buy',
        quantity: '4',
        asset_amount: '910.82992',
        fee: '0.90992',
        price: '227.70748',
        currency: 'USD',
        price_in_currency: '227.70748',
        market_price: '227.48',
        quoted_amount_out: '4',
        amount_out: '4',
        slippage_vs_quote_bps: '0',
        slippage_vs_market_bps: '10',
      },
      // 15000 USD (18-decimal asset) at 418.60 HKD × 0.1285 = 53.7901 USD a share, lots of 100:
      // 15000 / 1.001 / 5379.01 = 2.79 lots → 200 shares, 10758.02, fee 10.75802, 10768.77802 paid:
      // 53.8438901 a share (53.843890 to 6 digits), / 0.1285 = 419.0186 HKD = 418.6 × 1.001.
      hkBuy: {
        side: 'buy',
        quantity: '200',
        asset_amount: '10768.77802',
        fee: '10.75802',
        price: '53.84389',
        currency: 'HKD',
        price_in_currency: '419.0186',
        market_price: '418.6',
        quoted_amount_out: '200',
        amount_out: '200',
        slippage_vs_quote_bps: '0',
        slippage_vs_market_bps: '10',
      },
      // 1 share at 227.48 less the fee 0.22748: 227.25252 received = 227.48 × 0.999.
      aaplSell: {
        side: 'sell',
        quantity: '1',
        asset_amount: '227.25252',
        fee: '0.22748',
        price: '227.25252',
        currency: 'USD',
        price_in_currency: '227.25252',
        market_price: '227.48',
        quoted_amount_out: '227.25252',
        amount_out: '227.25252',
        slippage_vs_quote_bps: '0',
        slippage_vs_market_bps: '10',
      },
    }
    expect(table?.rows).toHaveLength(3)
    for (const key of ['aaplBuy', 'hkBuy', 'aaplSell'] as const) {
      const outcome = outcomes[key]
      const fill = outcome.fills[0]
      if (!fill) throw new Error(`execution ${outcome.execution.id} has no fill`)
      const execution = ledger.executions.getExecution(outcome.execution.id)
      if (!execution?.marketPrice) throw new Error('no market price recorded')
      expect(table?.rows.find((row) => row.id === fill.id)).toEqual({
        id: fill.id,
        time: new Date(Number(fill.blockTime) * 1000).toISOString(),
        chain_id: fill.chainId,
        ticker: fill.ticker,
        execution_id: outcome.execution.id,
        strategy: key === 'hkBuy' ? null : 'dca',
        market_price_at: new Date(execution.marketPrice.atMs).toISOString(),
        tx_hash: fill.txHash,
        ...expected[key],
      })
    }
    expect(summary?.rows).toEqual([
      {
        chain_id: chainWithRouter().chainId,
        ticker: 'AAPL',
        fills: 2,
        avg_vs_quote_bps: '0',
        fills_with_market_price: 2,
        avg_vs_market_bps: '10',
        worst_vs_market_bps: '10',
      },
      {
        chain_id: chainWithoutRouter().chainId,
        ticker: '0700',
        fills: 1,
        avg_vs_quote_bps: '0',
        fills_with_market_price: 1,
        avg_vs_market_bps: '10',
        worst_vs_market_bps: '10',
      },
    ])
  })

  it('honours the filters, and a missing market price is null and noted', () => {
    expect(fillsReport(context, { ticker: '0700' }).tables[0]?.rows).toHaveLength(1)
    expect(fillsReport(context, { strategy: 'dca' }).tables[0]?.rows).toHaveLength(2)
    expect(fillsReport(context, { sinceMs: Date.now() + 60_000 }).tables[0]?.rows).toEqual([])
    // A copy of the ledger where the market price was never recorded (executions before migration 5):
    // fills then have no slippage against it, and the daily figures are rebuilt from the fills.
    const copyPath = ledgers.path('no-market-price.sqlite')
    ledger.database.prepare('VACUUM INTO ?').run(copyPath)
    const copy = openLedger({ path: copyPath })
    try {
      copy.database.exec(
        'UPDATE executions SET market_price = NULL, market_price_at_ms = NULL, market_fx_rate = NULL',
      )
      copy.database.exec('UPDATE fills SET slippage_vs_market_cbps = NULL')
      expect(copy.positions.recomputePositions().mismatches).toEqual([])
      const report = fillsReport({ ledger: copy, now: Date.now }, {})
      expect(report.tables[0]?.rows.map((row) => row.slippage_vs_market_bps)).toEqual([null, null, null])
      expect(report.tables[0]?.rows.map((row) => row.slippage_vs_quote_bps)).toEqual(['0', '0', '0'])
      expect(report.notes.some((note) => note.startsWith('3 fill(s) have no market price'))).toBe(true)
    } finally {
      copy.close()
    }
  })

  it('shows a non-zero slippage vs quote either way, and averages it half away from zero', () => {
    // The sandbox always settles what it quoted, so a copy of the ledger is given the slippage of
    // fills that did not (as src/store/fillSlippageOf.ts records it, in centi-bps; computing it is
    // tested in test/store/fillSlippageOf.test.ts), and its daily figures rebuilt from them.
    const copyPath = ledgers.path('quote-slippage.sqlite')
    ledger.database.prepare('VACUUM INTO ?').run(copyPath)
    const copy = openLedger({ path: copyPath })
    try {
      const setQuoteSlippage = copy.database.prepare(
        'UPDATE fills SET slippage_vs_quote_cbps = ? WHERE id = ?',
      )
      const fillId = (outcome: ExecutionOutcome) => outcome.fills[0]?.id
      setQuoteSlippage.run(1_250, fillId(outcomes.aaplBuy)) // fewer shares than quoted: 12.5 bps worse
      setQuoteSlippage.run(-61, fillId(outcomes.aaplSell)) // more USDC than quoted: 0.61 bps better
      setQuoteSlippage.run(-1, fillId(outcomes.hkBuy))
      expect(copy.positions.recomputePositions().mismatches).toEqual([])
      const [table, summary] = fillsReport({ ledger: copy, now: Date.now }, {}).tables
      const quoteSlippageOf = (outcome: ExecutionOutcome) =>
        table?.rows.find((row) => row.id === fillId(outcome))?.slippage_vs_quote_bps
      expect(quoteSlippageOf(outcomes.aaplBuy)).toBe('12.5')
      expect(quoteSlippageOf(outcomes.aaplSell)).toBe('-0.61')
      expect(quoteSlippageOf(outcomes.hkBuy)).toBe('-0.01')
      // AAPL: (1250 − 61) / 2 = 594.5 centi-bps → 595 (half away from zero) = 5.95 bps.
      expect(summary?.rows.map((row) => [row.ticker, row.avg_vs_quote_bps])).toEqual([
        ['AAPL', '5.95'],
        ['0700', '-0.01'],
      ])
    } finally {
      copy.close()
    }
  })
})

describe('latency report', () => {
  it('reads the same percentiles by rank from the indices as by sorting the durations', () => {
    const database = ledger.database
    const chains = [...new Set(Object.values(outcomes).map((outcome) => outcome.execution.chainId))]
    expect(latencyByRank(database, undefined).length).toBeGreaterThan(0)
    // A filter that selects every execution takes the sorting path.
    expect(latencyBySorting(database, { sinceMs: 0 })).toEqual(latencyByRank(database, undefined))
    for (const chainId of chains)
      expect(latencyBySorting(database, { chainId, sinceMs: 0 })).toEqual(latencyByRank(database, chainId))
  })

  it('gives nearest-rank percentiles per chain of each stage, as computed from the events by hand', () => {
    const report = latencyReport(context, {})
    const rows = report.tables[0]?.rows ?? []
    // By hand: the stage durations of each execution from its events.
    const durations = new Map<string, number[]>()
    const add = (chainId: number, stage: string, ms: number) => {
      const key = `${chainId} ${stage}`
      durations.set(key, [...(durations.get(key) ?? []), ms])
    }
    for (const outcome of Object.values(outcomes)) {
      const execution = outcome.execution
      const events = ledger.executions.listExecutionEvents(execution.id)
      const at = (state: string) => events.filter((event) => event.to === state).map((event) => event.atMs)
      const quoted = at('quoted')
      const submitted = at('submitted')[0]
      const confirmed = at('confirmed')[0]
      if (quoted[0] !== undefined) add(execution.chainId, 'intent → quote', quoted[0] - execution.createdAtMs)
      if (submitted !== undefined) {
        const used = Math.max(...quoted.filter((ms) => ms <= submitted))
        add(execution.chainId, 'quote → broadcast', submitted - used)
      }
      if (submitted !== undefined && confirmed !== undefined)
        add(execution.chainId, 'broadcast → inclusion', confirmed - submitted)
    }
    // Nearest rank, worked out by hand for the one or two samples each chain and stage has here:
    // the p-th percentile of n sorted values is the one of rank ceil(p·n/100). One sample: every
    // percentile is that sample. Two: p50 has rank ceil(1) = 1 (the shorter), p90 rank
    // ceil(1.8) = 2 and p99 rank ceil(1.98) = 2 (the longer). The larger percentiles are ranked
    // by hand on more samples in the next test.
    const expected = [...durations].map(([key, values]) => {
      if (values.length > 2) throw new Error(`${key}: ${values.length} samples, expected one or two`)
      const [shorter, longer = shorter] = [...values].sort((a, b) => a - b) as [number, number?]
      const [chainId, ...stage] = key.split(' ')
      return {
        chain_id: Number(chainId),
        stage: stage.join(' '),
        samples: values.length,
        p50_ms: shorter,
        p90_ms: longer,
        p99_ms: longer,
        max_ms: longer,
        mean_ms: Math.round((shorter + longer) / 2),
      }
    })
    const order = ['intent → quote', 'quote → broadcast', 'broadcast → inclusion']
    expected.sort((a, b) => a.chain_id - b.chain_id || order.indexOf(a.stage) - order.indexOf(b.stage))
    expect(rows).toEqual(expected)
    // The router chain: two executions were quoted (the service refused the third), sent and included.
    const routerChain = chainWithRouter().chainId
    expect(rows.filter((row) => row.chain_id === routerChain).map((row) => [row.stage, row.samples])).toEqual(
      [
        ['intent → quote', 2],
        ['quote → broadcast', 2],
        ['broadcast → inclusion', 2],
      ],
    )
    expect(report.notes.join(' ')).toContain('nearest rank')
    expect(latencyReport(context, { chainId: chainWithoutRouter().chainId }).tables[0]?.rows).toHaveLength(3)
    expect(latencyReport(context, { strategy: 'nobody' }).tables[0]?.rows).toEqual([])
  })

  it('ranks percentiles of known durations by hand, by index and by sorting alike', () => {
    // A ledger of executions whose stage times the test sets with the ledger's clock: on chain 1,
    // ten quoted in 10, 20, …, 90 and 105 ms (out of order), each then broadcast 3 ms and included
    // 1000 ms later; on chain 2, seven quoted in 1 to 7 ms and left there.
    let clock = Date.parse('2026-11-25T09:00:00Z')
    const path = ledgers.path('latency-by-hand.sqlite')
    const handLedger = openLedger({ path, now: () => clock })
    try {
      const execute = (chainId: number, quoteMs: number, settled: boolean) => {
        clock += 60_000
        const { id } = handLedger.executions.createExecution({
          intentId: `latency-${chainId}-${quoteMs}`,
          chainId,
          ticker: 'AAPL',
          exchange: 0,
          side: 'buy',
          amountIn: '1',
          amountType: 'stablecoin',
        })
        handLedger.executions.transition(id, 'intent', 'quoting', 'asked')
        clock += quoteMs
        handLedger.executions.transition(id, 'quoting', 'quoted', 'quoted')
        if (!settled) return
        clock += 3
        handLedger.executions.transition(id, 'quoted', 'submitted', 'sent')
        clock += 1000
        handLedger.executions.transition(id, 'submitted', 'confirmed', 'included')
      }
      for (const ms of [70, 20, 105, 40, 90, 10, 60, 30, 80, 50]) execute(1, ms, true)
      for (const ms of [5, 1, 7, 3, 6, 2, 4]) execute(2, ms, false)
      const row = (chain: number, stage: string, samples: number, ranked: number[], mean: number) => {
        const [p50, p90, p99, max] = ranked
        return {
          chain_id: chain,
          stage,
          samples,
          p50_ms: p50,
          p90_ms: p90,
          p99_ms: p99,
          max_ms: max,
          mean_ms: mean,
        }
      }
      const expected = [
        // n = 10, sorted 10, 20, …, 90, 105: p50 rank ceil(5) = 5 → 50, p90 rank ceil(9) = 9 → 90,
        // p99 rank ceil(9.9) = 10 → 105; mean 555 / 10 = 55.5 → 56 (half away from zero).
        row(1, 'intent → quote', 10, [50, 90, 105, 105], 56),
        row(1, 'quote → broadcast', 10, [3, 3, 3, 3], 3),
        row(1, 'broadcast → inclusion', 10, [1000, 1000, 1000, 1000], 1000),
        // n = 7, sorted 1 to 7: p50 rank ceil(3.5) = 4 → 4, p90 rank ceil(6.3) = 7 → 7, p99 rank
        // ceil(6.93) = 7 → 7; mean 28 / 7 = 4.
        row(2, 'intent → quote', 7, [4, 7, 7, 7], 4),
      ]
      const handContext = { ledger: handLedger, now: () => clock }
      expect(latencyReport(handContext, {}).tables[0]?.rows).toEqual(expected)
      // A filter that selects every execution sorts the durations instead of reading the indices.
      expect(latencyReport(handContext, { sinceMs: 0 }).tables[0]?.rows).toEqual(expected)
    } finally {
      handLedger.close()
    }
  })
})
