import { describe, expect, it } from 'vitest'
import { incomeReport } from '../../src/report/queries/income.js'
import { strategiesReport } from '../../src/report/queries/strategies.js'
import { summaryReport } from '../../src/report/queries/summary.js'
import { handFigures, table, useFiguresLedger } from './figuresLedger.js'

// The income, strategies and summary reports' figures against the ledger of figuresLedger.ts (built
// on this file's own sandbox), worked out there by hand from the trades (handFigures).
const figures = useFiguresLedger({ chainIds: [44_237, 44_238] })

describe('report figures: income, strategies and summary', () => {
  it('income and corporate actions, worked out by hand from the trades', () => {
    const nvda = figures.nvda()
    const { dividend } = handFigures.nvda
    const { assetA, A } = figures.chainsAndSums()
    const { incomeDay } = figures.recordedDays()

    const income = incomeReport(figures.context(), {})
    expect(table(income, 'income')).toEqual([
      {
        time: expect.any(String),
        chain_id: A,
        ticker: 'NVDA',
        kind: 'dividend',
        quantity: handFigures.nvda.quantity,
        amount: dividend.net,
        asset_token: assetA,
        currency: 'USD',
        gross: dividend.gross,
        tax: dividend.tax,
        fee: '0',
        net: dividend.net,
        tax_rate: 10,
        reference: expect.any(String),
        tx_hash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
      },
    ])
    expect(table(income, 'income_by_day')).toEqual([
      { day: incomeDay, chain_id: A, asset_token: assetA, count: 1, total: dividend.net },
    ])
    expect(table(income, 'corporate_actions')).toEqual([
      expect.objectContaining({
        chain_id: A,
        ticker: 'NVDX',
        token_address: nvda,
        kind: 'split',
        detail: '2/1',
      }),
      expect.objectContaining({
        chain_id: A,
        ticker: 'NVDX',
        token_address: nvda,
        kind: 'ticker change',
        detail: 'NVDA → NVDX',
      }),
    ])
    expect(table(income, 'corporate_action_counts')).toEqual([
      { kind: 'split', count: 1 },
      { kind: 'ticker change', count: 1 },
    ])
  })

  it('strategies, worked out by hand from the trades', () => {
    const { nvda, chainA, chainB } = handFigures
    const { assetA, assetB, A, B } = figures.chainsAndSums()

    const strategyRow = (strategy: string, chainId: number, parts: Record<string, string | number>) => ({
      strategy,
      chain_id: chainId,
      executions: 0,
      confirmed: 0,
      failed: 0,
      expired: 0,
      rejected: 0,
      in_flight: 0,
      fills: 0,
      ...parts,
    })
    expect(table(strategiesReport(figures.context(), {}), 'strategies')).toEqual([
      strategyRow('(none)', B, {
        executions: 1,
        confirmed: 1,
        fills: 1,
        asset_token: assetB,
        bought: chainB.bought,
        sold: '0',
        realized_pnl: '0',
        fees: chainB.fees,
      }),
      strategyRow('alpha', A, {
        executions: 2,
        confirmed: 2,
        fills: 2,
        asset_token: assetA,
        bought: chainA.alpha.bought,
        sold: chainA.sold,
        realized_pnl: nvda.realized,
        fees: chainA.alpha.fees,
      }),
      strategyRow('beta', A, {
        executions: 1,
        confirmed: 1,
        fills: 1,
        asset_token: assetA,
        bought: chainA.beta.bought,
        sold: '0',
        realized_pnl: '0',
        fees: chainA.beta.fees,
      }),
    ])
  })

  it('summary, worked out by hand from the trades', () => {
    const ledger = figures.ledger()
    const fills = figures.fills()
    const { nvda, hk } = handFigures
    const { B, chainASums, chainBSums } = figures.chainsAndSums()

    const summary = summaryReport(figures.context(), {})
    expect(table(summary, 'executions_by_state')).toEqual([{ state: 'confirmed', count: 4 }])
    expect(table(summary, 'chains')).toEqual([
      {
        ...chainASums,
        fills: 3,
        income: nvda.dividend.net,
        open_positions: 1,
        unrealized_pnl: nvda.unrealized,
      },
      {
        ...chainBSums,
        fills: 1,
        income: '0',
        open_positions: 1,
        unrealized_pnl: hk.unrealized,
      },
    ])
    const times = ledger.database
      .prepare('SELECT min(created_at_ms) AS first, max(updated_at_ms) AS last FROM executions')
      .get() as { first: number; last: number }
    const activity = [
      times.first,
      times.last,
      ...fills.map((fill) => fill.block_time * 1000),
      ...ledger.database
        .prepare<[], { at: number }>(
          `SELECT recorded_at_ms AS at FROM position_adjustments UNION ALL SELECT recorded_at_ms FROM position_renames
           UNION ALL SELECT recorded_at_ms FROM income`,
        )
        .all()
        .map((row) => row.at),
    ]
    expect(table(summary, 'run')).toEqual([
      {
        executions: 4,
        fills: 4,
        open_positions: 2,
        first_activity: new Date(Math.min(...activity)).toISOString(),
        last_activity: new Date(Math.max(...activity)).toISOString(),
        kill_switch: 'running',
        kill_switch_reason: null,
        kill_switch_changed_at: null,
      },
    ])
    // The chain filter narrows the summary to one chain.
    expect(table(summaryReport(figures.context(), { chainId: B }), 'chains')).toEqual([
      {
        ...chainBSums,
        fills: 1,
        income: '0',
        open_positions: 1,
        unrealized_pnl: hk.unrealized,
      },
    ])
  })
})
