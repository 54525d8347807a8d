import { formatPrice } from '@stockroute/client/domain/unitStrings.js'
import { describe, expect, it } from 'vitest'
import { strategyListSchema } from '../../src/daemon/controlApi/contract.js'
import { createControlPlane } from '../../src/daemon/createControlPlane.js'
import { refreshTokenList } from '../../src/daemon/jobs/index.js'
import { createMarketDataCache } from '../../src/daemon/marketData.js'
import { createStrategyControl } from '../../src/daemon/strategyControl.js'
import { createStrategyRunner } from '../../src/daemon/strategyRunner.js'
import { listingsOf } from '../../src/daemon/tokenListings.js'
import type { ExecutionOutcome } from '../../src/engine/index.js'
import { runReport, runReportAcrossLedgers } from '../../src/report/index.js'
import { createTwapStrategy, type ListingView } from '../../src/strategy/index.js'
import { type TestEngine, useControlServer } from '../helpers/controlApi.js'
import { positionsAgainstChain, settlementsOf } from '../helpers/engine.js'
import { chainWithRouter, tokenOf } from '../helpers/localChains.js'

// A TWAP end to end, as the daemon runs it: the strategy runner's ticks on a clock the test moves
// through the window (no waiting for a real one), the real engine, ledger file, sandbox service and
// anvil chain. The order: 1,050 shares of Tencent (0700, HKEX, lot 100 in the sandbox's
// catalogue, which lists no ShareToken 0700s) in 10 slices: ten slices of 100, the 50 left refused
// with the reason in the progress; and 3.5 AAPL in 3 slices of 1, the half share bought as AAPLs.

const chainId = chainWithRouter().chainId
const startAt = '2026-03-02T01:30:00.000Z'
const tencent = createTwapStrategy({
  id: 'twap-0700',
  chainId,
  ticker: '0700',
  exchange: 1,
  side: 'buy',
  quantity: '1050',
  lotSize: 100,
  startAt,
  durationMinutes: 60,
  slices: 10,
})
const apple = createTwapStrategy({
  id: 'twap-aapl',
  chainId,
  ticker: 'AAPL',
  exchange: 0,
  side: 'buy',
  quantity: '3.5',
  startAt,
  windowMinutes: 30,
  slices: 3,
  jitterPct: 50,
})
const strategies = [tencent, apple]

/** The test's clock: the runner's and the strategy control's `now`. */
let clock = Date.parse(startAt) - 60_000
let listings: ListingView[] | undefined
const control = (engine: TestEngine) =>
  createStrategyControl({ strategies, ledger: engine.ledger, listings: () => listings, now: () => clock })

const { testEngine, call } = useControlServer({
  engine: { funding: { asset: '80000' } },
  server: (engine) => ({
    controlPlane: createControlPlane({
      engine: engine.engine,
      ledger: engine.ledger,
      strategies: control(engine),
    }),
  }),
})

/** The runner over the test engine, its submissions' ends collected so that a test can await them. */
function runnerOf(engine: TestEngine) {
  const ends: Promise<ExecutionOutcome>[] = []
  const tick = createStrategyRunner({
    strategies,
    engine: {
      chains: engine.engine.chains,
      submit: async (intent, options) => {
        const followed = await engine.engine.submit(intent, options)
        ends.push(followed.done)
        return followed
      },
    },
    ledger: engine.ledger,
    marketData: createMarketDataCache({ service: engine.client, staleAfterMs: 60_000 }),
    lotSizes: () => new Map(),
    listings: () => listings,
    signal: new AbortController().signal,
    now: () => clock,
  })
  return {
    /** One tick at `atMs`; resolves with the tick's report and the ends of what it submitted. */
    async tickAt(atMs: number) {
      clock = atMs
      const report = await tick()
      return { report, outcomes: await Promise.all(ends.splice(0)) }
    },
  }
}

describe('twap on the sandbox', () => {
  it('buys 1,050 shares of 0700 (lot 100) as ten whole-lot slices, refuses the 50 left, and the ledger, the chain and the progress agree', async () => {
    const engine = testEngine()
    const { account, ledger } = engine
    listings = listingsOf((await refreshTokenList({ service: engine.client, chainIds: [chainId] })).tokens)
    // The sandbox's catalogue: 0700 with lot 100, and no ShareToken 0700s; AAPLs listed.
    expect(listings?.find((listing) => listing.ticker === '0700')).toMatchObject({
      lotSize: 100n,
      tokenKind: 'stock',
    })
    expect(listings?.some((listing) => listing.ticker === '0700s')).toBe(false)
    expect(listings?.find((listing) => listing.ticker === 'AAPLs')).toMatchObject({ tokenKind: 'share' })
    const runner = runnerOf(engine)

    // Before the window: nothing.
    expect((await runner.tickAt(Date.parse(startAt) - 1)).report.submitted).toBe(0)
    // Every slice time of both orders, in order: each tick submits what came due, once.
    const due = [...tencent.slices, ...apple.slices].map((slice) => slice.atMs).sort((a, b) => a - b)
    const outcomes: ExecutionOutcome[] = []
    for (const atMs of due) {
      const tick = await runner.tickAt(atMs)
      expect(tick.report.refused).toEqual([])
      outcomes.push(...tick.outcomes)
    }
    // After the window: nothing new (each intent id is executed once).
    const after = await runner.tickAt(Date.parse(startAt) + 3_600_000)
    expect(after.report.submitted).toBe(0)

    expect(outcomes.map((outcome) => outcome.execution.state)).toEqual(outcomes.map(() => 'confirmed'))
    const executions = ledger.executions.listExecutions({ strategy: 'twap-0700' })
    expect(
      executions.map((execution) => [execution.intentId, execution.amountIn, execution.state]).sort(),
    ).toEqual(
      Array.from({ length: 10 }, (_, i) => [`twap:twap-0700:slice:${i + 1}`, '100', 'confirmed']).sort(),
    )
    expect(ledger.executions.getExecutionByIntent('twap:twap-0700:remainder')).toBeUndefined()

    // What the ledger, the chain's settlement events and the chain's balances say: 1,000 shares.
    const tencentToken = tokenOf(chainWithRouter(), '0700').toLowerCase()
    const settled = (await settlementsOf(chainWithRouter(), account.address)).filter(
      (fill) => fill.stockToken.toLowerCase() === tencentToken,
    )
    expect(settled).toHaveLength(10)
    expect(settled.reduce((sum, fill) => sum + fill.amountOut, 0n)).toBe(1000n)
    const filledInLedger = ledger.fills
      .listFillsOfExecutions(executions.map((execution) => execution.id))
      .reduce((sum, fill) => sum + fill.stockAmount, 0n)
    expect(filledInLedger).toBe(1000n)
    const positions = await positionsAgainstChain(ledger, account.address)
    expect(positions.find((position) => position.ticker === '0700')).toMatchObject({
      ledger: 1000n,
      onChain: 1000n,
    })

    // The half AAPL share went as the ShareToken AAPLs, listed on the chain.
    const aaplIntents = ledger.executions
      .listExecutions({ strategy: 'twap-aapl' })
      .map((execution) => [execution.intentId, execution.ticker, execution.amountIn, execution.state])
      .sort()
    expect(aaplIntents).toEqual([
      ['twap:twap-aapl:remainder', 'AAPLs', '0.5', 'confirmed'],
      ['twap:twap-aapl:slice:1', 'AAPL', '1', 'confirmed'],
      ['twap:twap-aapl:slice:2', 'AAPL', '1', 'confirmed'],
      ['twap:twap-aapl:slice:3', 'AAPL', '1', 'confirmed'],
    ])
    expect(positions.find((position) => position.ticker === 'AAPLs')).toMatchObject({
      ledger: 5n * 10n ** 17n,
      onChain: 5n * 10n ** 17n,
    })

    // The progress through the control API: done, remaining, the refused remainder and why, the
    // average fill price against the arrival price (the market price the first slice was quoted at).
    const firstSlice = ledger.executions.getExecutionByIntent('twap:twap-0700:slice:1')
    const arrival = firstSlice?.marketPrice?.price
    if (arrival === undefined) throw new Error('the first slice recorded no market price')
    expect(arrival).toBeGreaterThan(0n)
    const listed = strategyListSchema.parse((await call('/v1/strategies')).body).strategies
    const progress = listed.find((strategy) => strategy.id === 'twap-0700')?.progress
    expect(progress).toMatchObject({
      ticker: '0700',
      side: 'buy',
      ordered: '1050',
      filled: '1000',
      remaining: '50',
      slices: { planned: 10, due: 10, sent: 10, confirmed: 10 },
      window: { start: startAt, end: '2026-03-02T02:30:00.000Z' },
      nextSliceAt: null,
      remainder: {
        ticker: '0700s',
        shares: '50',
        status: 'refused',
        reason: `the remainder of 50 shares (not a whole lot of 100) is not traded: chain ${chainId} lists no ShareToken 0700s`,
      },
      currency: 'HKD',
      arrivalPrice: formatPrice(arrival),
      notes: [
        `the remainder of 50 shares (not a whole lot of 100) is not traded: chain ${chainId} lists no ShareToken 0700s`,
      ],
    })
    expect(Number(progress?.averagePrice)).toBeGreaterThan(0)
    expect(progress?.vsArrivalBps).toMatch(/^-?\d+(\.\d+)?$/)
    expect(listed.find((strategy) => strategy.id === 'twap-aapl')?.progress).toMatchObject({
      ordered: '3.5',
      filled: '3.5',
      remaining: '0',
      remainder: { ticker: 'AAPLs', shares: '0.5', status: 'sent', reason: null },
      currency: 'USD',
      notes: [],
    })

    // The strategies report: the same figures from the ledger; over two ledgers, summed.
    const twapOrders = new Map([
      ['twap-0700', 1050n * 10n ** 18n],
      ['twap-aapl', 35n * 10n ** 17n],
    ])
    const report = runReport('strategies', { ledger, now: Date.now, twapOrders }, {})
    const rows = report.tables.find((table) => table.key === 'twap')?.rows
    expect(rows?.find((row) => row.strategy === 'twap-0700')).toMatchObject({
      chain_id: chainId,
      ticker: '0700',
      executions: 10,
      confirmed: 10,
      ordered: '1050',
      filled: '1000',
      remaining: '50',
      currency: 'HKD',
      average_price: progress?.averagePrice,
      arrival_price: progress?.arrivalPrice,
      vs_arrival_bps: progress?.vsArrivalBps,
    })
    const twice = runReportAcrossLedgers(
      'strategies',
      [
        { name: 'a', database: ledger.database },
        { name: 'b', database: ledger.database },
      ],
      { now: Date.now, twapOrders },
      {},
    )
    expect(
      twice.tables.find((table) => table.key === 'twap')?.rows.find((row) => row.strategy === 'twap-0700'),
    ).toMatchObject({
      executions: 20,
      filled: '2000',
      remaining: '0',
      // The same fills twice: the same average and arrival prices.
      average_price: progress?.averagePrice,
      arrival_price: progress?.arrivalPrice,
    })
  })
})
