import { rmSync } from 'node:fs'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { runReport } from '../../src/report/index.js'
import { pnlReport } from '../../src/report/queries/pnl.js'
import { positionsReport } from '../../src/report/queries/positions.js'
import type { MarketPriceBook } from '../../src/report/types.js'
import { latestSchemaVersion, openLedger } from '../../src/store/index.js'
import { day, type FillRow, handFigures, sums, table, useFiguresLedger } from './figuresLedger.js'

// The positions and pnl reports' figures against the ledger of figuresLedger.ts (built on this
// file's own sandbox), worked out there by hand from the trades (handFigures).
const figures = useFiguresLedger({ chainIds: [44_137, 44_138] })

describe('report figures: positions and pnl', () => {
  it('positions, worked out by hand from the trades', () => {
    const context = figures.context()
    const { nvda, hk } = handFigures
    const { A, B, assetA, assetB } = figures.chainsAndSums()

    const nvdaRow = {
      chain_id: A,
      ticker: 'NVDX',
      exchange: 'USEX',
      token_kind: 'stock',
      token_address: figures.nvda(),
      balance: nvda.quantity,
      asset_token: assetA,
      avg_price: nvda.avgPrice,
      cost_basis: nvda.costBasis,
      realized_pnl: nvda.realized,
      price: nvda.price,
      price_source: 'last fill',
      market_value: nvda.marketValue,
      unrealized_pnl: nvda.unrealized,
      currency: 'USD',
      avg_price_ccy: nvda.avgPrice,
      price_ccy: nvda.price,
      unrealized_pnl_ccy: nvda.unrealized,
    }
    const hkRow = {
      chain_id: B,
      ticker: '9988',
      exchange: 'HKEX',
      token_kind: 'stock',
      token_address: figures.hk(),
      balance: hk.quantity,
      asset_token: assetB,
      avg_price: hk.avgPrice,
      cost_basis: hk.costBasis,
      realized_pnl: '0',
      currency: 'HKD',
      avg_price_ccy: hk.avgPriceHkd,
    }
    // positions: offline, priced at the last fill (the average, the only fill).
    expect(table(positionsReport(context, {}), 'positions')).toEqual([
      nvdaRow,
      {
        ...hkRow,
        price: hk.avgPrice,
        price_source: 'last fill',
        market_value: hk.costBasis,
        unrealized_pnl: hk.unrealized,
        price_ccy: hk.avgPriceHkd,
        unrealized_pnl_ccy: hk.unrealized,
      },
    ])
    // Then with a market price of 80 HKD for 9988.
    const book: MarketPriceBook = new Map([['1:9988', { price: '80', currency: 'HKD', atMs: figures.now }]])
    expect(table(positionsReport({ ...context, marketPrices: book }, {}), 'positions')).toEqual([
      nvdaRow,
      {
        ...hkRow,
        price: hk.market.price,
        price_source: 'market',
        market_value: hk.market.marketValue,
        unrealized_pnl: hk.market.unrealized,
        price_ccy: hk.market.priceHkd,
        unrealized_pnl_ccy: hk.market.unrealizedHkd,
      },
    ])
    // The former ticker finds the renamed position.
    expect(table(positionsReport(context, { ticker: 'NVDA' }), 'positions')).toEqual([nvdaRow])
  })

  it('pnl per asset, day, strategy and token, worked out by hand from the trades', () => {
    const context = figures.context()
    const fills = figures.fills()
    const { nvda, hk, chainA } = handFigures
    const { A, B, assetA, assetB, chainASums, chainBSums } = figures.chainsAndSums()

    // pnl per asset.
    const pnl = pnlReport(context, {})
    expect(table(pnl, 'pnl')).toEqual([
      { ...chainASums, income: nvda.dividend.net, unrealized_pnl: nvda.unrealized },
      { ...chainBSums, income: '0', unrealized_pnl: hk.unrealized },
    ])
    expect(pnl.notes.join(' ')).toContain('average cost')

    // pnl per day: fills on their block's UTC day, corporate actions and income on their recording day.
    const { actionDays, incomeDay } = figures.recordedDays()
    const fillDay = (fill: FillRow) => day(fill.block_time * 1000)
    const allSameDay = new Set([...actionDays, incomeDay, ...fills.map(fillDay)]).size === 1
    if (allSameDay) {
      expect(table(pnl, 'pnl_by_day')).toEqual([
        { day: incomeDay, ...chainASums, income: nvda.dividend.net },
        { day: incomeDay, ...chainBSums, income: '0' },
      ])
    } else {
      // Midnight passed during the test: the days still sum to the totals.
      const rows = table(pnl, 'pnl_by_day')
      expect(rows.reduce((n, row) => n + (row.buys as number) + (row.sells as number), 0)).toBe(4)
    }

    // pnl per strategy.
    const alpha = {
      realized_pnl: nvda.realized,
      fees: chainA.alpha.fees,
      bought: chainA.alpha.bought,
      sold: chainA.sold,
      buys: 1,
      sells: 1,
    }
    const beta = { fees: chainA.beta.fees, bought: chainA.beta.bought, buys: 1 }
    expect(table(pnl, 'pnl_by_strategy')).toEqual([
      { strategy: '(corporate action)', ...sums({ corporate_actions: 2 }, A, assetA) },
      { strategy: '(none)', ...chainBSums },
      { strategy: 'alpha', ...sums(alpha, A, assetA) },
      { strategy: 'beta', ...sums(beta, A, assetA) },
    ])
    const tokenRows = table(pnl, 'pnl_by_token')
    expect(tokenRows.map((row) => [row.chain_id, row.ticker, row.realized_pnl])).toEqual([
      [A, 'NVDX', nvda.realized],
      [B, '9988', '0'],
    ])
    expect(allSameDay || actionDays.length === 2).toBe(true)
    // A strategy filter keeps its own fills only, and no income.
    expect(table(pnlReport(context, { strategy: 'beta' }), 'pnl')).toEqual([
      { ...sums(beta, A, assetA), income: '0', unrealized_pnl: nvda.unrealized },
      { ...sums({}, B, assetB), income: '0', unrealized_pnl: hk.unrealized },
    ])
  })
})

describe('migration 7 on a ledger written before it', () => {
  it('computes the same figures the live code wrote: realized PnL per step, daily sums, slippage, reason classes, stage times', () => {
    const ledger = figures.ledger()
    const path = `${ledger.path}.schema6.sqlite`
    rmSync(path, { force: true })
    ledger.database.prepare('VACUUM INTO ?').run(path)
    const figuresOf = (database: Database.Database) => ({
      days: database.prepare('SELECT * FROM ledger_days ORDER BY 1, 2, 3, 4, 5').all(),
      fills: database
        .prepare(
          'SELECT id, realized_pnl, slippage_vs_quote_cbps, slippage_vs_market_cbps FROM fills ORDER BY id',
        )
        .all(),
      adjustments: database.prepare('SELECT id, realized_pnl FROM position_adjustments ORDER BY id').all(),
      executions: database
        .prepare(
          `SELECT id, reason_class, first_quoted_at_ms, last_quoted_at_ms, submitted_at_ms, confirmed_at_ms,
             intent_to_quote_ms, quote_to_broadcast_ms, broadcast_to_inclusion_ms FROM executions ORDER BY id`,
        )
        .all(),
    })
    const live = figuresOf(ledger.database)
    expect(live.days.length).toBeGreaterThan(0)
    // Take the copy back to schema 6: what a ledger of before had.
    const old = new Database(path)
    old.exec(`
      DROP TABLE entry_halts;
      DROP TABLE equity_peaks;
      DROP TABLE protective_exits;
      DROP TABLE protective_state;
      DROP TABLE wallet_fences;
      ALTER TABLE transactions DROP COLUMN fence_token;
      DROP TABLE transaction_outcomes;
      ALTER TABLE transactions DROP COLUMN deadline_ms;
      DROP TABLE ledger_days;
      DROP TABLE chain_assets;
      DROP TABLE equity_marks;
      DROP TRIGGER execution_stage_marks;
      DROP INDEX executions_by_state_reason;
      DROP INDEX executions_by_strategy_outcome;
      DROP INDEX executions_by_created;
      DROP INDEX executions_by_updated;
      DROP INDEX executions_intent_to_quote;
      DROP INDEX executions_quote_to_broadcast;
      DROP INDEX executions_broadcast_to_inclusion;
      ALTER TABLE executions DROP COLUMN intent_to_quote_ms;
      ALTER TABLE executions DROP COLUMN quote_to_broadcast_ms;
      ALTER TABLE executions DROP COLUMN broadcast_to_inclusion_ms;
      ALTER TABLE executions DROP COLUMN first_quoted_at_ms;
      ALTER TABLE executions DROP COLUMN last_quoted_at_ms;
      ALTER TABLE executions DROP COLUMN submitted_at_ms;
      ALTER TABLE executions DROP COLUMN confirmed_at_ms;
      ALTER TABLE executions DROP COLUMN reason_class;
      ALTER TABLE executions DROP COLUMN market_fx_rate;
      ALTER TABLE fills DROP COLUMN realized_pnl;
      ALTER TABLE fills DROP COLUMN slippage_vs_quote_cbps;
      ALTER TABLE fills DROP COLUMN slippage_vs_market_cbps;
      ALTER TABLE position_adjustments DROP COLUMN realized_pnl;
      DELETE FROM schema_migrations WHERE version >= 7;
    `)
    old.close()
    const migrated = openLedger({ path })
    try {
      expect(migrated.schemaVersion).toBe(latestSchemaVersion)
      expect(figuresOf(migrated.database)).toEqual(live)
      // Symbols are not in an older ledger: the engine records them when it next sets its chains up.
      expect(migrated.chainAssets.list()).toEqual([])
    } finally {
      migrated.close()
      rmSync(path, { force: true })
    }
  })
})

describe('asset names', () => {
  it('every table with an asset names it by the symbol the engine recorded, the address kept at the end', () => {
    const context = figures.context()
    const report = runReport('pnl', context, {})
    const table = report.tables[0]
    expect(table?.columns.map((column) => column.key).slice(0, 2)).toEqual(['chain_id', 'asset'])
    expect(table?.columns.at(-1)).toEqual({
      key: 'asset_token',
      title: 'Asset token',
      kind: 'text',
      wide: true,
    })
    const assets = figures.ledger().chainAssets.list()
    expect(assets).toHaveLength(2)
    for (const row of table?.rows ?? [])
      expect(row.asset).toBe(
        assets.find((asset) => asset.chainId === row.chain_id && asset.address === row.asset_token)?.symbol,
      )
  })
})
