import { toAssetAmount } from '@stockroute/client/domain/units.js'
import Database from 'better-sqlite3'
import type { Address } from 'viem'
import { describe, expect, it } from 'vitest'
import {
  LedgerInputError,
  latestSchemaVersion,
  ledgerApplicationId,
  migrations,
  type NewIncome,
  openLedger,
} from '../../src/store/index.js'
import { bytes32, ledgerFolder, tokens } from './ledgerFiles.js'

const folder = ledgerFolder()
const weth = '0x2000000000000000000000000000000000000002' as Address

function dividend(overrides: Partial<NewIncome> = {}): NewIncome {
  return {
    chainId: 31337,
    tokenAddress: tokens.aapl,
    ticker: 'AAPL',
    kind: 'dividend',
    amount: toAssetAmount(28_784_000n),
    assetToken: tokens.usdc,
    assetDecimals: 6,
    quantity: 100n,
    original: { currency: 'HKD', gross: '250', tax: '25', fee: '1', net: '224', taxRate: 10 },
    txHash: bytes32('dividend-tx'),
    logIndex: 0,
    reference: 'ca-1',
    reason: 'dividend 2.5 HKD a share',
    ...overrides,
  }
}

function inputError(run: () => unknown): LedgerInputError {
  try {
    run()
  } catch (error) {
    if (error instanceof LedgerInputError) return error
    throw error
  }
  throw new Error('expected a LedgerInputError, nothing was thrown')
}

describe('migration 2 (income, position renames)', () => {
  it('upgrades a version-1 ledger in place: its fills and positions stay, the new tables arrive, seq goes on', () => {
    const path = folder.path()
    const [first] = migrations
    if (!first) throw new Error('no migration 1')
    // A file as the previous build left it: migration 1 applied, one fill and its position.
    const old = new Database(path)
    old.pragma(`application_id = ${ledgerApplicationId}`)
    old.exec(`CREATE TABLE schema_migrations (
      version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at_ms INTEGER NOT NULL) STRICT`)
    old.exec(first.sql)
    old.prepare('INSERT INTO schema_migrations VALUES (1, ?, 0)').run(first.name)
    old.exec(`INSERT INTO fills (seq, chain_id, tx_hash, log_index, quote_id, taker, stock_token, asset_token,
        token_kind, asset_decimals, ticker, exchange, is_buy, amount_in, amount_out, fee_amount, block_number,
        block_time, recorded_at_ms)
      VALUES (1, 31337, '${bytes32('v1-fill')}', 0, '${bytes32('v1-quote')}', '${tokens.taker}', '${tokens.aapl}',
        '${tokens.usdc}', 'stock', 6, 'AAPL', 0, 1, '1000000000', '4', '1000000', 100, 1750000000, 0);
      INSERT INTO positions (chain_id, token_address, ticker, exchange, token_kind, asset_token, asset_decimals,
        balance, cost_basis, avg_price, realized_pnl, last_seq, updated_at_ms)
      VALUES (31337, '${tokens.aapl}', 'AAPL', 0, 'stock', '${tokens.usdc}', 6, '4', '1000000000', '250000000',
        '0', 1, 0);`)
    old.close()

    const upgraded = openLedger({ path })
    expect(upgraded.schemaVersion).toBe(latestSchemaVersion)
    expect(latestSchemaVersion).toBeGreaterThanOrEqual(2)
    expect(upgraded.positions.getPosition(31337, tokens.aapl)?.balance).toBe(4n)
    const renamed = upgraded.positions.renamePosition({
      chainId: 31337,
      tokenAddress: tokens.aapl,
      ticker: 'AAPL2',
      reference: 'rename-1',
    })
    expect(renamed.status).toBe('recorded')
    expect(upgraded.positions.listRenames()[0]?.seq).toBe(2)
    expect(upgraded.income.recordIncome(dividend()).status).toBe('recorded')
    expect(upgraded.positions.recomputePositions().mismatches).toEqual([])
    upgraded.close()
  })
})

describe('income', () => {
  it('records a dividend once by reference, also across re-opens, with every field read back', () => {
    const path = folder.path()
    const ledger = openLedger({ path, now: () => 1_750_000_000_000 })
    const first = ledger.income.recordIncome(
      dividend({
        original: { currency: 'HKD', gross: '0250.00', tax: '25', fee: '1.0', net: '224', taxRate: 10 },
      }),
    )
    expect(first.status).toBe('recorded')
    expect(first.income).toEqual({
      id: 1,
      chainId: 31337,
      tokenAddress: tokens.aapl,
      ticker: 'AAPL',
      kind: 'dividend',
      amount: 28_784_000n,
      assetToken: tokens.usdc,
      assetDecimals: 6,
      quantity: 100n,
      original: { currency: 'HKD', gross: '250', tax: '25', fee: '1', net: '224', taxRate: 10 },
      txHash: bytes32('dividend-tx'),
      logIndex: 0,
      reference: 'ca-1',
      reason: 'dividend 2.5 HKD a share',
      recordedAtMs: 1_750_000_000_000,
    })
    // The same reference with other numbers changes nothing: the first recording stands.
    const again = ledger.income.recordIncome(dividend({ amount: toAssetAmount(1n) }))
    expect(again).toEqual({ status: 'duplicate', income: first.income })
    ledger.close()

    const reopened = openLedger({ path })
    expect(reopened.income.recordIncome(dividend()).status).toBe('duplicate')
    expect(reopened.income.listIncome()).toHaveLength(1)
    expect(reopened.income.getIncomeByReference('ca-1')?.amount).toBe(28_784_000n)
    expect(reopened.income.getIncomeByReference('nope')).toBeUndefined()
    // Income is not a position change: no position was created for it.
    expect(reopened.positions.listPositions()).toEqual([])
    reopened.close()
  })

  it('keeps optional fields null, and sums exact totals per chain and asset (beyond 2^53)', () => {
    const ledger = openLedger({ path: folder.path() })
    const big = 10n ** 24n + 7n
    ledger.income.recordIncome(dividend({ reference: 'a', amount: toAssetAmount(big) }))
    ledger.income.recordIncome(dividend({ reference: 'b', amount: toAssetAmount(big + 1n) }))
    ledger.income.recordIncome(
      dividend({
        reference: 'c',
        chainId: 8453,
        tokenAddress: tokens.tsla,
        ticker: 'TSLA',
        assetToken: weth,
        assetDecimals: 18,
        amount: toAssetAmount(5n),
        quantity: undefined,
        original: undefined,
        txHash: undefined,
        logIndex: undefined,
      }),
    )
    ledger.income.recordIncome(
      dividend({ reference: 'd', amount: toAssetAmount(0n), tokenAddress: tokens.aapls }),
    )
    const bare = ledger.income.getIncomeByReference('c')
    expect(bare).toMatchObject({
      quantity: null,
      txHash: null,
      logIndex: null,
      original: { currency: null, gross: null, tax: null, fee: null, net: null, taxRate: null },
    })
    expect(ledger.income.incomeTotals()).toEqual([
      { chainId: 8453, assetToken: weth, assetDecimals: 18, total: 5n, count: 1 },
      { chainId: 31337, assetToken: tokens.usdc, assetDecimals: 6, total: 2n * big + 1n, count: 3 },
    ])
    expect(ledger.income.incomeTotals({ chainId: 8453 })).toHaveLength(1)
    expect(
      ledger.income.listIncome({ chainId: 31337, tokenAddress: tokens.aapl }).map((i) => i.reference),
    ).toEqual(['a', 'b'])
    expect(ledger.income.listIncome({ kind: 'dividend' })).toHaveLength(4)
    expect(ledger.income.listIncome({ sinceMs: Date.now() + 60_000 })).toEqual([])
    ledger.close()
  })

  it.each([
    ['a negative amount', { amount: -1n as never }, 'amount'],
    ['an empty reference', { reference: '' }, 'reference'],
    ['an empty ticker', { ticker: '' }, 'ticker'],
    ['an empty reason', { reason: '' }, 'reason'],
    ['an unknown kind', { kind: 'interest' as never }, 'kind'],
    ['a malformed decimal', { original: { net: '1,5' } }, 'original.net'],
    ['a negative decimal', { original: { gross: '-3' } }, 'original.gross'],
    ['a currency that is no ISO code', { original: { currency: 'usd' } }, 'original.currency'],
    ['a tax rate above 100', { original: { taxRate: 101 } }, 'original.taxRate'],
    ['a log index without its transaction', { txHash: undefined, logIndex: 2 }, 'logIndex'],
    ['a malformed hash', { txHash: '0x12' as never }, 'txHash'],
    ['a malformed token address', { tokenAddress: '0xnope' as never }, 'tokenAddress'],
    ['asset decimals above 36', { assetDecimals: 37 }, 'assetDecimals'],
    ['chain id 0', { chainId: 0 }, 'chainId'],
  ] as const)('refuses %s, storing nothing', (_name, overrides, field) => {
    const ledger = openLedger({ path: folder.path() })
    const error = inputError(() => ledger.income.recordIncome(dividend(overrides as Partial<NewIncome>)))
    expect(error.details.field).toBe(field)
    expect(ledger.income.listIncome()).toEqual([])
    ledger.close()
  })

  it("the schema's CHECKs refuse what the repository would never write", () => {
    const path = folder.path()
    const ledger = openLedger({ path })
    ledger.income.recordIncome(dividend())
    ledger.close()
    const raw = new Database(path)
    const valid: Record<string, string | number | null> = {
      chain_id: 31337,
      token_address: tokens.aapl,
      ticker: 'AAPL',
      kind: 'dividend',
      quantity: '100',
      amount: '5',
      asset_token: tokens.usdc,
      asset_decimals: 6,
      original_currency: 'USD',
      original_gross: '1.5',
      original_tax: '0',
      original_fee: null,
      original_net: '1.25',
      tax_rate: 0,
      tx_hash: bytes32('x'),
      log_index: 3,
      reference: 'raw-ok',
      reason: 'raw',
      recorded_at_ms: 1,
    }
    const insert = (row: Record<string, string | number | null>) => {
      const columns = Object.keys(row)
      raw
        .prepare(
          `INSERT INTO income (${columns.join(', ')}) VALUES (${columns.map((c) => `@${c}`).join(', ')})`,
        )
        .run(row)
    }
    insert(valid)
    const refused: [string, unknown][] = [
      ['amount', '-1'],
      ['amount', '01'],
      ['amount', '1.5'],
      ['amount', 5],
      ['amount', null],
      ['quantity', ''],
      ['kind', 'interest'],
      ['ticker', ''],
      ['chain_id', 0],
      ['asset_decimals', 37],
      ['original_net', '1.50'],
      ['original_net', '.5'],
      ['original_net', '01'],
      ['original_net', '1.'],
      ['original_net', '1.2.3'],
      ['original_gross', '-1'],
      ['original_tax', '1e5'],
      ['original_currency', 'usd'],
      ['original_currency', 'USDT'],
      ['tax_rate', 101],
      ['tax_rate', -1],
      ['tx_hash', bytes32('x').toUpperCase().replace('0X', '0x')],
      ['log_index', -1],
      ['token_address', 'not-an-address'],
      ['asset_token', `${tokens.usdc}00`],
      ['reference', null],
      ['reference', ''],
      ['reason', ''],
    ]
    for (const [column, value] of refused) {
      const row = { ...valid, reference: `raw-${column}-${String(value)}`, [column]: value }
      expect(
        () => insert(row as Record<string, string | number | null>),
        `${column} = ${String(value)}`,
      ).toThrow(/constraint failed|cannot store/)
    }
    // A log index without its transaction hash.
    expect(() => insert({ ...valid, reference: 'raw-log', tx_hash: null })).toThrow(/CHECK constraint failed/)
    // One income per reference.
    expect(() => insert({ ...valid })).toThrow(/UNIQUE constraint failed: income.reference/)
    expect(raw.prepare('SELECT count(*) FROM income').pluck().get()).toBe(2)
    raw.close()
  })
})
