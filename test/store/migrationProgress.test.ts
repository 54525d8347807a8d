import { copyFileSync } from 'node:fs'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import {
  formatMigrationProgress,
  latestSchemaVersion,
  type MigrationProgress,
  migrationProgressPrinter,
  migrations,
  openLedger,
} from '../../src/store/index.js'
import { reportFigures } from '../../src/store/migration7.js'
import { migrate } from '../../src/store/schemaVersion.js'
import { bytes32, ledgerFolder, tokens } from './ledgerFiles.js'

const folder = ledgerFolder()

/**
 * A ledger as a stockroute of before migration 7 left it: migrations 1–6 applied by the store's own
 * `migrate`, then `count` confirmed executions with their events and one fill each, written at that
 * schema (AAPL on chain 31337: three buys of 3 shares, then a sell of 1, so sells realize a PnL).
 */
function schema6Ledger(count: number): string {
  const path = folder.path()
  const db = new Database(path)
  migrate(db, path, migrations.slice(0, 6), () => 0)
  const execution = db.prepare(
    `INSERT INTO executions (intent_id, chain_id, ticker, exchange, side, amount_in, amount_type, state, reason,
       created_at_ms, updated_at_ms, strategy)
     VALUES (?, 31337, 'AAPL', 0, ?, ?, ?, 'confirmed', 'receipt success', ?, ?, ?)`,
  )
  const event = db.prepare(
    'INSERT INTO execution_events (execution_id, from_state, to_state, reason, at_ms) VALUES (?, ?, ?, ?, ?)',
  )
  const fill = db.prepare(
    `INSERT INTO fills (seq, chain_id, tx_hash, log_index, execution_id, quote_id, taker, stock_token, asset_token,
       token_kind, asset_decimals, ticker, exchange, is_buy, amount_in, amount_out, fee_amount, block_number,
       block_time, recorded_at_ms)
     VALUES (?, 31337, ?, 0, ?, ?, ?, ?, ?, 'stock', 6, 'AAPL', 0, ?, ?, ?, '1000000', ?, ?, ?)`,
  )
  db.transaction(() => {
    for (let index = 0; index < count; index += 1) {
      const sell = index % 4 === 3
      const at = 1_750_000_000_000 + index * 60_000
      const id = Number(
        execution.run(
          `old-${index}`,
          sell ? 'sell' : 'buy',
          sell ? '1' : '600',
          sell ? 'stocktoken' : 'stablecoin',
          at,
          at + 3_000,
          index % 2 === 0 ? 'dca' : null,
        ).lastInsertRowid,
      )
      const steps = [
        [null, 'intent'],
        ['intent', 'quoting'],
        ['quoting', 'quoted'],
        ['quoted', 'submitted'],
        ['submitted', 'confirmed'],
      ] as const
      steps.forEach(([from, to], step) => {
        event.run(id, from, to, to, at + step * 500)
      })
      fill.run(
        index + 1,
        bytes32(`old-tx/${index}`),
        id,
        bytes32(`old-quote/${index}`),
        tokens.taker,
        tokens.aapl,
        tokens.usdc,
        sell ? 0 : 1,
        sell ? '1' : String(600_000_000 + index * 1_000),
        sell ? String(210_000_000 + index * 1_000) : '3',
        100 + index,
        Math.floor(at / 1000) + 2,
        at + 3_000,
      )
    }
  })()
  db.close()
  return path
}

/** What migration 7 computes, read back after the open migrated the ledger. */
function figuresOf(path: string, onMigrationProgress?: (progress: MigrationProgress) => void) {
  const ledger = openLedger({ path, onMigrationProgress })
  try {
    const db = ledger.database
    return {
      schemaVersion: ledger.schemaVersion,
      days: db.prepare('SELECT * FROM ledger_days ORDER BY 1, 2, 3, 4, 5').all(),
      fills: db
        .prepare(
          'SELECT id, realized_pnl, slippage_vs_quote_cbps, slippage_vs_market_cbps FROM fills ORDER BY id',
        )
        .all() as { realized_pnl: string }[],
      executions: db
        .prepare(
          'SELECT id, reason_class, first_quoted_at_ms, submitted_at_ms, confirmed_at_ms FROM executions ORDER BY id',
        )
        .all(),
    }
  } finally {
    ledger.close()
  }
}

describe('migration progress', () => {
  it('reports migration 7 on a ledger of before it: each step from 0 to its total, counts only growing, the figures unchanged', () => {
    const count = 250
    const path = schema6Ledger(count)
    const silentCopy = `${path}.silent.sqlite`
    const throwingCopy = `${path}.throwing.sqlite`
    copyFileSync(path, silentCopy)
    copyFileSync(path, throwingCopy)

    const all: MigrationProgress[] = []
    const reported = figuresOf(path, (progress) => all.push(progress))
    expect(reported.schemaVersion).toBe(latestSchemaVersion)
    // Migrations 7 and 12 only (12 rebuilds the event stream one statement at a time): the others
    // have no backfill and run their SQL at once.
    expect(new Set(all.map((progress) => `${progress.version} ${progress.name}`))).toEqual(
      new Set(['7 report figures', '12 entry halts and equity peaks']),
    )
    const reports = all.filter((progress) => progress.version === 7)
    const steps = [...new Set(reports.map((progress) => progress.step))]
    expect(steps).toEqual([
      'schema changes',
      'backfilling reason classes',
      'backfilling slippage',
      'backfilling realized PnL and daily figures',
    ])
    const expected: Record<string, [string, number]> = {
      'schema changes': ['statements', reportFigures.statements?.length ?? -1],
      'backfilling reason classes': ['executions', count],
      'backfilling slippage': ['fills', count],
      'backfilling realized PnL and daily figures': ['fills', count],
    }
    for (const step of steps) {
      const ofStep = reports.filter((progress) => progress.step === step)
      const [unit, total] = expected[step] ?? ['?', -1]
      expect(ofStep.every((progress) => progress.unit === unit && progress.total === total)).toBe(true)
      expect(ofStep[0]?.done).toBe(0)
      expect(ofStep.at(-1)?.done).toBe(total)
      const counts = ofStep.map((progress) => progress.done)
      expect(counts).toEqual([...counts].sort((a, b) => a - b))
      // Reports in between (every 1% of the total: here every 3 rows), and the total only at the end.
      expect(ofStep.length).toBeGreaterThan(10)
      expect(counts.slice(0, -1)).not.toContain(total)
    }
    // Rows were really computed: sells realized a PnL and the days hold the fold.
    expect(reported.fills.some((row) => row.realized_pnl !== '0')).toBe(true)
    expect(reported.days.length).toBeGreaterThan(0)

    // No callback: silent, and the same figures; a callback that throws cannot fail the migration.
    expect(figuresOf(silentCopy)).toEqual(reported)
    expect(
      figuresOf(throwingCopy, () => {
        throw new Error('a broken progress printer')
      }),
    ).toEqual(reported)
  })

  it('a new ledger reports nothing beyond counts of zero rows', () => {
    const reports: MigrationProgress[] = []
    openLedger({ path: folder.path(), onMigrationProgress: (progress) => reports.push(progress) }).close()
    const rows = reports.filter((progress) => progress.unit !== 'statements')
    expect(rows.every((progress) => progress.total === 0 && progress.done === 0)).toBe(true)
  })

  it('prints a line at most every second; a step that printed prints its end too', () => {
    let now = 0
    const lines: string[] = []
    const print = migrationProgressPrinter((line) => lines.push(line), { now: () => now })
    const report = (step: string, done: number, total: number, at: number) => {
      now = at
      print({ version: 7, name: 'report figures', step, unit: 'fills', done, total })
    }
    // A step that ends within a second prints nothing.
    report('backfilling slippage', 0, 100, 0)
    report('backfilling slippage', 50, 100, 400)
    report('backfilling slippage', 100, 100, 900)
    expect(lines).toEqual([])
    // A long one: a line once a second has passed, then its end.
    report('backfilling realized PnL and daily figures', 0, 1_000_000, 1_000)
    report('backfilling realized PnL and daily figures', 10_000, 1_000_000, 1_500)
    report('backfilling realized PnL and daily figures', 120_000, 1_000_000, 2_100)
    report('backfilling realized PnL and daily figures', 130_000, 1_000_000, 2_600)
    report('backfilling realized PnL and daily figures', 1_000_000, 1_000_000, 2_700)
    expect(lines).toEqual([
      'migrating ledger to version 7 (report figures): backfilling realized PnL and daily figures 120000/1000000 fills (12%)',
      'migrating ledger to version 7 (report figures): backfilling realized PnL and daily figures 1000000/1000000 fills (100%)',
    ])
    expect(
      formatMigrationProgress({
        version: 7,
        name: 'report figures',
        step: 'schema changes',
        unit: 'statements',
        done: 0,
        total: 0,
      }),
    ).toBe('migrating ledger to version 7 (report figures): schema changes 0/0 statements (100%)')
  })
})
