import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { LedgerInputError, openLedger, PositionError } from '../../src/store/index.js'
import { fillOf, ledgerFolder, tokens } from './ledgerFiles.js'

const folder = ledgerFolder()
const aapl = { chainId: 31337, tokenAddress: tokens.aapl }

describe('positions.renamePosition', () => {
  it('renames a position after a ticker change, once by reference; quantities and money stay', () => {
    const path = folder.path()
    const ledger = openLedger({ path, now: () => 1_000 })
    ledger.fills.recordFill(fillOf({ txLabel: 'r1', amountIn: 1_500_000_000n, amountOut: 10n }))
    const before = ledger.positions.getPosition(31337, tokens.aapl)
    const result = ledger.positions.renamePosition({ ...aapl, ticker: 'APPL', reference: 'ca-rename' })
    expect(result.status).toBe('recorded')
    if (result.status !== 'recorded') throw new Error('unreachable')
    expect(result.position).toEqual({ ...before, ticker: 'APPL', lastSeq: 2 })
    expect(ledger.positions.renamePosition({ ...aapl, ticker: 'OTHER', reference: 'ca-rename' })).toEqual({
      status: 'duplicate',
      renameId: result.renameId,
    })
    expect(ledger.positions.getPosition(31337, tokens.aapl)?.ticker).toBe('APPL')
    expect(ledger.positions.listRenames()).toEqual([
      {
        id: result.renameId,
        seq: 2,
        chainId: 31337,
        tokenAddress: tokens.aapl,
        fromTicker: 'AAPL',
        toTicker: 'APPL',
        reference: 'ca-rename',
        reason: 'ticker change AAPL → APPL',
        recordedAtMs: 1_000,
      },
    ])
    expect(ledger.positions.listRenames({ chainId: 8453 })).toEqual([])
    expect(ledger.positions.listRenames({ tokenAddress: tokens.aapl.toLowerCase() as never })).toHaveLength(1)
    expect(ledger.positions.findAppliedReference('ca-rename')).toMatchObject({
      kind: 'rename',
      id: result.renameId,
      seq: 2,
      chainId: 31337,
      tokenAddress: tokens.aapl,
    })
    ledger.close()
    const reopened = openLedger({ path })
    expect(
      reopened.positions.renamePosition({ ...aapl, ticker: 'APPL', reference: 'ca-rename' }).status,
    ).toBe('duplicate')
    reopened.close()
  })

  it('survives recomputePositions, which also restores a ticker someone overwrote', () => {
    const path = folder.path()
    const ledger = openLedger({ path })
    ledger.fills.recordFill(fillOf({ txLabel: 'rc1', amountOut: 6n }))
    ledger.positions.applyPositionAdjustment({
      ...aapl,
      kind: 'split',
      numerator: 2n,
      denominator: 1n,
      reason: 'split',
      reference: 'ca-split',
    })
    ledger.positions.renamePosition({ ...aapl, ticker: 'NEWT', reference: 'ca-rename' })
    const stored = ledger.positions.listPositions()
    expect(ledger.positions.recomputePositions()).toEqual({ positions: stored, mismatches: [] })
    expect(ledger.positions.findAppliedReference('ca-split')).toMatchObject({ kind: 'split', seq: 2 })
    expect(ledger.positions.findAppliedReference('unknown')).toBeUndefined()
    ledger.close()

    const raw = new Database(path)
    raw.prepare("UPDATE positions SET ticker = 'AAPL'").run()
    raw.close()
    const reopened = openLedger({ path })
    const { mismatches } = reopened.positions.recomputePositions()
    expect(mismatches).toHaveLength(1)
    expect(mismatches[0]?.stored?.ticker).toBe('AAPL')
    expect(mismatches[0]?.recomputed?.ticker).toBe('NEWT')
    expect(reopened.positions.getPosition(31337, tokens.aapl)).toMatchObject({ ticker: 'NEWT', balance: 12n })
    reopened.close()
  })

  it('shares the ledger order with fills and adjustments; a later fill names the position after its own ticker', () => {
    const ledger = openLedger({ path: folder.path() })
    ledger.fills.recordFill(fillOf({ txLabel: 'o1', amountOut: 3n }))
    ledger.positions.renamePosition({ ...aapl, ticker: 'NEWT' })
    const next = ledger.fills.recordFill(fillOf({ txLabel: 'o2', amountOut: 1n, ticker: 'NEWT' }))
    expect(next.fill.seq).toBe(3)
    expect(ledger.positions.getPosition(31337, tokens.aapl)).toMatchObject({ ticker: 'NEWT', balance: 4n })
    ledger.fills.recordFill(fillOf({ txLabel: 'o3', amountOut: 1n, ticker: 'AAPL' }))
    expect(ledger.positions.getPosition(31337, tokens.aapl)?.ticker).toBe('AAPL')
    expect(ledger.positions.recomputePositions().mismatches).toEqual([])
    ledger.close()
  })

  it('refuses a token without a position, an empty ticker or reason, and stores nothing', () => {
    const ledger = openLedger({ path: folder.path() })
    expect(() => ledger.positions.renamePosition({ ...aapl, ticker: 'X' })).toThrow(PositionError)
    ledger.fills.recordFill(fillOf({ txLabel: 'bad' }))
    for (const change of [
      { ...aapl, ticker: '' },
      { ...aapl, ticker: ' X ' },
      { ...aapl, ticker: 'X', reason: '' },
      { ...aapl, ticker: 'X', reference: '' },
      { ...aapl, tokenAddress: '0x12' as never, ticker: 'X' },
      { ...aapl, chainId: 0, ticker: 'X' },
    ])
      expect(() => ledger.positions.renamePosition(change)).toThrow(LedgerInputError)
    expect(ledger.positions.listRenames()).toEqual([])
    expect(ledger.positions.getPosition(31337, tokens.aapl)?.ticker).toBe('AAPL')
    ledger.close()
  })

  it("the schema's CHECKs refuse empty tickers and a reused reference", () => {
    const path = folder.path()
    const ledger = openLedger({ path })
    ledger.fills.recordFill(fillOf({ txLabel: 'ck' }))
    ledger.positions.renamePosition({ ...aapl, ticker: 'NEWT', reference: 'ref' })
    ledger.close()
    const raw = new Database(path)
    const insert = raw.prepare(
      `INSERT INTO position_renames (seq, chain_id, token_address, from_ticker, to_ticker, reference, reason, recorded_at_ms)
       VALUES (?, 31337, ?, ?, ?, ?, 'raw', 1)`,
    )
    expect(() => insert.run(10, tokens.aapl, '', 'B', null)).toThrow(/CHECK constraint failed/)
    expect(() => insert.run(11, tokens.aapl, 'A', '', null)).toThrow(/CHECK constraint failed/)
    expect(() => insert.run(12, 'nope', 'A', 'B', null)).toThrow(/CHECK constraint failed/)
    expect(() => insert.run(13, tokens.aapl, 'A', 'B', 'ref')).toThrow(/UNIQUE constraint failed/)
    expect(() => insert.run(2, tokens.aapl, 'A', 'B', null)).toThrow(/UNIQUE constraint failed/)
    raw.close()
  })
})
