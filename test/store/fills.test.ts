import { parseAssetAmount } from '@stockroute/client/domain/unitStrings.js'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { FillRecordError, openLedger } from '../../src/store/index.js'
import { bytes32, fillOf, ledgerFolder, tokens } from './ledgerFiles.js'

const folder = ledgerFolder()
const usdc = (text: string) => parseAssetAmount(text, 6)

describe('fills', () => {
  it('are recorded once: the same (chain, tx hash, log index) again is a duplicate and changes nothing, also after a re-open', () => {
    const path = folder.path()
    const ledger = openLedger({ path })
    const fill = fillOf({ txLabel: 'dup', amountIn: usdc('1000'), amountOut: 5n })
    const first = ledger.fills.recordFill(fill)
    expect(first.status).toBe('recorded')
    if (first.status !== 'recorded') throw new Error('unreachable')
    expect(first.position.balance).toBe(5n)
    expect(first.fill).toMatchObject({ stockAmount: 5n, assetAmount: usdc('1000'), seq: 1 })

    const again = ledger.fills.recordFill(fill)
    expect(again).toEqual({ status: 'duplicate', fill: first.fill })
    expect(ledger.positions.getPosition(31337, tokens.aapl)?.balance).toBe(5n)
    ledger.close()

    const reopened = openLedger({ path })
    // Hashes in another spelling are the same hash.
    expect(
      reopened.fills.recordFill({
        ...fill,
        txHash: fill.txHash.toUpperCase().replace('0X', '0x') as `0x${string}`,
      }).status,
    ).toBe('duplicate')
    // Another log of the same transaction is another fill.
    expect(reopened.fills.recordFill({ ...fill, logIndex: 1 }).status).toBe('recorded')
    expect(reopened.fills.listFills()).toHaveLength(2)
    expect(reopened.positions.getPosition(31337, tokens.aapl)?.balance).toBe(10n)
    reopened.close()

    const raw = new Database(path)
    expect(() =>
      raw
        .prepare(
          'INSERT INTO fills SELECT NULL, 99, chain_id, tx_hash, log_index, execution_id, quote_id, taker, stock_token, asset_token, token_kind, asset_decimals, ticker, exchange, is_buy, amount_in, amount_out, fee_amount, block_number, block_hash, block_time, recorded_at_ms, NULL, NULL, realized_pnl, NULL, NULL FROM fills WHERE id = 1',
        )
        .run(),
    ).toThrow(/UNIQUE constraint failed: fills.chain_id, fills.tx_hash, fills.log_index/)
    // A reversed fill (its block taken by a reorg) stays as history beside the live one.
    raw.prepare("UPDATE fills SET reversed_at_ms = 1, reversal_reason = 'reorg' WHERE id = 1").run()
    raw
      .prepare(
        'INSERT INTO fills SELECT NULL, 99, chain_id, tx_hash, log_index, execution_id, quote_id, taker, stock_token, asset_token, token_kind, asset_decimals, ticker, exchange, is_buy, amount_in, amount_out, fee_amount, block_number, block_hash, block_time, recorded_at_ms, NULL, NULL, realized_pnl, NULL, NULL FROM fills WHERE id = 1',
      )
      .run()
    raw.close()
  })

  it('refuses a second, different decoding of a stored fill', () => {
    const ledger = openLedger({ path: folder.path() })
    const fill = fillOf({ txLabel: 'conflict' })
    ledger.fills.recordFill(fill)
    let error: unknown
    try {
      ledger.fills.recordFill({ ...fill, amountOut: fill.amountOut + 1n })
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(FillRecordError)
    expect((error as FillRecordError).details.differing).toEqual(['amount_out'])
    expect(ledger.positions.getPosition(31337, tokens.aapl)?.balance).toBe(fill.amountOut)
    ledger.close()
  })

  it('links a fill to the execution its quote id belongs to', () => {
    const ledger = openLedger({ path: folder.path() })
    const quoteId = bytes32('quote/linked')
    const { id } = ledger.executions.createExecution({
      intentId: 'linked',
      chainId: 31337,
      ticker: 'AAPL',
      exchange: 0,
      side: 'buy',
      amountIn: '1000',
      amountType: 'stablecoin',
    })
    ledger.executions.transition(id, 'intent', 'quoting', 'go')
    ledger.executions.transition(id, 'quoting', 'quoted', 'quote', { quoteId })
    const result = ledger.fills.recordFill(fillOf({ txLabel: 'linked', quoteId }))
    expect(result.fill.executionId).toBe(id)
    expect(ledger.fills.listFills({ executionId: id })).toHaveLength(1)
    expect(ledger.fills.recordFill(fillOf({ txLabel: 'unlinked' })).fill.executionId).toBeNull()
    ledger.close()
  })

  it('updates the position in the same transaction: a fill that fails to insert leaves the position as it was', () => {
    const ledger = openLedger({ path: folder.path() })
    ledger.fills.recordFill(fillOf({ txLabel: 'before', amountOut: 7n }))
    const before = ledger.positions.getPosition(31337, tokens.aapl)
    // executionId 4242 does not exist: the fill's foreign key fails after the position was written.
    expect(() => ledger.fills.recordFill(fillOf({ txLabel: 'orphan', executionId: 4242 }))).toThrow(
      /FOREIGN KEY constraint failed/,
    )
    expect(ledger.positions.getPosition(31337, tokens.aapl)).toEqual(before)
    expect(ledger.fills.listFills()).toHaveLength(1)
    ledger.close()
  })
})

describe('atomically', () => {
  it('commits a receipt, its fill and the confirmed transition together, or none of them', () => {
    const ledger = openLedger({ path: folder.path() })
    const quoteId = bytes32('quote/atomic')
    const { id } = ledger.executions.createExecution({
      intentId: 'atomic',
      chainId: 31337,
      ticker: 'AAPL',
      exchange: 0,
      side: 'buy',
      amountIn: '1000',
      amountType: 'stablecoin',
    })
    ledger.executions.transition(id, 'intent', 'quoting', 'go')
    ledger.executions.transition(id, 'quoting', 'quoted', 'quote', { quoteId })
    ledger.executions.transition(id, 'quoted', 'submitted', 'sent')
    const fill = fillOf({ txLabel: 'atomic', quoteId })
    expect(() =>
      ledger.atomically(() => {
        ledger.fills.recordFill(fill)
        ledger.executions.transition(id, 'submitted', 'confirmed', 'receipt success')
        throw new Error('crash before commit')
      }),
    ).toThrow('crash before commit')
    expect(ledger.fills.listFills()).toEqual([])
    expect(ledger.positions.listPositions()).toEqual([])
    expect(ledger.executions.getExecution(id)?.state).toBe('submitted')

    ledger.atomically(() => {
      ledger.fills.recordFill(fill)
      ledger.executions.transition(id, 'submitted', 'confirmed', 'receipt success')
    })
    expect(ledger.fills.listFills({ executionId: id })).toHaveLength(1)
    expect(ledger.executions.getExecution(id)?.state).toBe('confirmed')
    ledger.close()
  })
})
