import { defaultFxRates } from '@stockroute/client/domain/quotePrice.js'
import { parsePrice } from '@stockroute/client/domain/unitStrings.js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { ExecutionOutcome } from '../../src/engine/index.js'
import { executionsReport } from '../../src/report/queries/executions.js'
import { fillsReport } from '../../src/report/queries/fills.js'
import { latencyByRank, latencyBySorting, latencyReport } from '../../src/report/queries/latency.js'
import type { ReportContext } from '../../src/report/types.js'
import { type Ledger, openLedger } from '../../src/store/index.js'
import { createTestEngine, engineLedgers, readStoredQuoteForTest } from '../helpers/engine.js'
import { chainWithoutRouter, chainWithRouter } from '../helpers/localChains.js'
import { useSandboxService } from '../helpers/sandboxService.js'

// The executions, fills and latency reports on a ledger made by real trades on the sandbox (the
// service over HTTP, anvil chains), each figure checked against a computation by hand from what
// the ledger stores: the quote, the fill, the market price, the events.

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
    await test.close()
  }
  ledger = openLedger({ path: ledgerPath, readonly: true })
  context = { ledger, now: () => Date.parse('2026-11-25T10:00:00Z') }
})

afterAll(() => ledger?.close())

/** Rounds `numerator / denominator` half away from zero (the reports' one rounding). */
function roundHalfAway(numerator: bigint, denominator: bigint): bigint {
  const negative = numerator < 0n
  const magnitude = negative ? -numerator : numerator
  const rounded = (magnitude * 2n + denominator) / (denominator * 2n)
  return negative ? -rounded : rounded
}

/** Hundredths of a bps as the reports print them. */
function bpsText(centi: bigint): string {
  const negative = centi < 0n
  const magnitude = negative ? -centi : centi
  const text = `${magnitude / 100n}.${(magnitude % 100n).toString().padStart(2, '0')}`.replace(/\.?0+$/, '')
  return `${negative ? '-' : ''}${text === '' ? '0' : text}`
}

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
    expect(table?.rows).toHaveLength(3)
    for (const outcome of [outcomes.aaplBuy, outcomes.hkBuy, outcomes.aaplSell]) {
      const fill = outcome.fills[0]
      if (!fill) throw new Error(`execution ${outcome.execution.id} has no fill`)
      const execution = ledger.executions.getExecution(outcome.execution.id)
      if (!execution?.marketPrice) throw new Error('no market price recorded')
      const quote = readStoredQuoteForTest(execution)
      const row = table?.rows.find((candidate) => candidate.id === fill.id)
      const decimals = fill.assetDecimals
      const isBuy = fill.isBuy
      // The asset side and the shares: StockTokens here, so the quantity is whole shares.
      const asset = isBuy ? fill.amountIn : fill.amountOut
      const shares = isBuy ? fill.amountOut : fill.amountIn
      const fx = outcome === outcomes.hkBuy ? defaultFxRates.hkex : defaultFxRates.usex
      // Price per share in asset base units, rounded half away from zero.
      const price = roundHalfAway(asset, shares)
      // Slippage vs quote: what the quote promised out against what came out.
      const vsQuote = roundHalfAway((quote.amountOut - fill.amountOut) * 1_000_000n, quote.amountOut)
      // Slippage vs market: price in the market's currency (asset / fx) against the market price.
      // price_ccy / market − 1 = asset·1e8 / (shares·fx·10^d / 1e8 · market) − 1, in 1/100 bps.
      const market = execution.marketPrice.price
      const reference = shares * fx * 10n ** BigInt(decimals) * market
      const filled = asset * 10n ** 16n
      const vsMarket = roundHalfAway(
        (isBuy ? filled - reference : reference - filled) * 1_000_000n,
        reference,
      )
      expect(row).toMatchObject({
        chain_id: fill.chainId,
        ticker: fill.ticker,
        side: isBuy ? 'buy' : 'sell',
        execution_id: outcome.execution.id,
        quantity: shares.toString(),
        currency: outcome === outcomes.hkBuy ? 'HKD' : 'USD',
        slippage_vs_quote_bps: bpsText(vsQuote),
        slippage_vs_market_bps: bpsText(vsMarket),
        market_price_at: new Date(execution.marketPrice.atMs).toISOString(),
        tx_hash: fill.txHash,
      })
      // The settlement pays exactly what the quote signed: no slippage against it.
      expect(row?.slippage_vs_quote_bps).toBe('0')
      // The guard let it through: within its 300 bps of the market (fee and spread included).
      expect(Math.abs(Number(row?.slippage_vs_market_bps))).toBeLessThan(300)
      // 6-decimal assets are shown exactly; 18-decimal ones rounded to 6 fraction digits.
      const exact = (value: bigint) =>
        decimals <= 6
          ? (Number(value) / 10 ** decimals).toString()
          : (Number(value) / 10 ** decimals).toFixed(6)
      // As numbers, to the last digit shown but one: an 18-decimal price rounded exactly to 6 digits
      // and the float quotient here can fall on either side of a 5 in the seventh.
      expect(Number(row?.price)).toBeCloseTo(Number(exact(price)), 5)
      expect(Number(row?.fee)).toBeCloseTo(Number(fill.feeAmount) / 10 ** decimals, 6)
      if (decimals <= 6) {
        expect(row?.price).toBe(exact(price))
        expect(row?.asset_amount).toBe(exact(asset))
      }
      // The market price read for the guard, in the market currency (1e8 scale).
      expect(Number(row?.market_price)).toBeCloseTo(Number(market) / 1e8, 6)
      // HK: the price in HKD is the asset price over the HKD rate.
      expect(Number(row?.price_in_currency)).toBeCloseTo(
        Number(asset) / Number(shares) / 10 ** decimals / (Number(fx) / 1e8),
        4,
      )
    }
    expect(summary?.rows).toEqual([
      expect.objectContaining({
        chain_id: chainWithRouter().chainId,
        ticker: 'AAPL',
        fills: 2,
        avg_vs_quote_bps: '0',
        fills_with_market_price: 2,
      }),
      expect.objectContaining({
        chain_id: chainWithoutRouter().chainId,
        ticker: '0700',
        fills: 1,
        avg_vs_quote_bps: '0',
        fills_with_market_price: 1,
      }),
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
    const percentile = (sorted: number[], p: number) => sorted[Math.ceil((p * sorted.length) / 100) - 1]
    const expected = [...durations].map(([key, values]) => {
      const sorted = [...values].sort((a, b) => a - b)
      const [chainId, ...stage] = key.split(' ')
      return {
        chain_id: Number(chainId),
        stage: stage.join(' '),
        samples: sorted.length,
        p50_ms: percentile(sorted, 50),
        p90_ms: percentile(sorted, 90),
        p99_ms: percentile(sorted, 99),
        max_ms: sorted.at(-1),
        mean_ms: Math.round(sorted.reduce((sum, ms) => sum + ms, 0) / sorted.length),
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
})
