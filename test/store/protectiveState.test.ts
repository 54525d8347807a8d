import { parseAssetAmount } from '@stockroute/client/domain/unitStrings.js'
import { describe, expect, it } from 'vitest'
import { type Ledger, openLedger, type ProtectiveStateRecord } from '../../src/store/index.js'
import { bytes32, fillOf, ledgerFolder, tokens } from './ledgerFiles.js'

// The ledger side of `protect` strategies (migration 11): what each strategy remembers of the
// positions it watches, kept across restarts, and the epoch of a position (the step that opened it).

const folder = ledgerFolder()
const usdc = (text: string) => parseAssetAmount(text, 6)

function seqOf(result: ReturnType<Ledger['fills']['recordFill']>): number {
  return result.fill.seq
}

const epochOf = (ledger: Ledger) => {
  const position = ledger.positions.getPosition(31337, tokens.aapl)
  return position ? ledger.protectiveState.positionEpoch(position) : undefined
}

const remembered = (epoch: number, exits: ProtectiveStateRecord['exits'] = []): ProtectiveStateRecord => ({
  chainId: 31337,
  ticker: 'AAPL',
  epoch,
  highWater: { price: 25_000_000_000n, atMs: 1_000 },
  exits,
})

const stopLoss = (epoch: number) => ({
  trigger: 'stop-loss' as const,
  intentId: `protect:guard:stop-loss:${epoch}`,
  price: 18_000_000_000n,
  quantity: 10n,
  balance: 10n,
  atMs: 2_000,
})

describe('protective state', () => {
  it('keeps what a strategy remembers across a restart; forgets closed positions; keeps exits as history, each at its latest attempt', () => {
    const path = folder.path()
    const first = openLedger({ path, now: () => 5_000 })
    expect(first.protectiveState.list('guard')).toEqual([])
    first.protectiveState.save('guard', [remembered(7)])
    first.protectiveState.save('other', [{ chainId: 31338, ticker: 'TSLA', epoch: 2, exits: [] }])
    first.protectiveState.save('guard', [remembered(7, [stopLoss(7)])])
    // Saving an exit again keeps what it fired with: its price, quantity and balance.
    first.protectiveState.save('guard', [
      remembered(7, [{ ...stopLoss(7), price: 1n, quantity: 3n, balance: 4n }]),
    ])
    expect(first.protectiveState.list('guard')).toEqual([remembered(7, [stopLoss(7)])])
    // A new attempt at its sale (the first ended without a trade) changes its intent id and time only.
    const retried = { ...stopLoss(7), intentId: 'protect:guard:stop-loss:7:2', atMs: 17_000 }
    first.protectiveState.save('guard', [remembered(7, [{ ...retried, price: 1n }])])
    first.close()

    const second = openLedger({ path })
    expect(second.protectiveState.list('guard')).toEqual([remembered(7, [retried])])
    expect(second.protectiveState.list('other')).toEqual([
      { chainId: 31338, ticker: 'TSLA', epoch: 2, exits: [] },
    ])
    // The position closed, then opened again as epoch 12: only that epoch's exits are remembered.
    second.protectiveState.save('guard', [])
    expect(second.protectiveState.list('guard')).toEqual([])
    second.protectiveState.save('guard', [remembered(12)])
    expect(second.protectiveState.list('guard')).toEqual([remembered(12)])
    expect(second.protectiveState.listExits({ strategyId: 'guard' })).toEqual([
      { ...retried, strategyId: 'guard', chainId: 31337, ticker: 'AAPL', epoch: 7 },
    ])
    expect(second.protectiveState.listExits()).toHaveLength(1)
    second.close()
  })

  it('refuses an exit of nothing', () => {
    const ledger = openLedger({ path: folder.path() })
    expect(() =>
      ledger.protectiveState.save('guard', [remembered(7, [{ ...stopLoss(7), quantity: 0n }])]),
    ).toThrow(/CHECK constraint failed/)
    expect(ledger.protectiveState.list('guard')).toEqual([])
    ledger.close()
  })

  it("a position's epoch is the step that opened it: it stays while the position is long, changes when reopened", () => {
    const path = folder.path()
    const ledger = openLedger({ path })
    expect(epochOf(ledger)).toBeUndefined()
    const opened = seqOf(ledger.fills.recordFill(fillOf({ txLabel: 'buy-1', amountOut: 10n })))
    expect(epochOf(ledger)).toBe(opened)
    ledger.fills.recordFill(fillOf({ txLabel: 'buy-2', amountOut: 5n }))
    ledger.fills.recordFill(
      fillOf({ txLabel: 'sell-1', isBuy: false, amountIn: 12n, amountOut: usdc('2400') }),
    )
    expect(epochOf(ledger)).toBe(opened)
    // A split keeps it.
    ledger.positions.applyPositionAdjustment({
      chainId: 31337,
      tokenAddress: tokens.aapl,
      kind: 'split',
      numerator: 2n,
      denominator: 1n,
      reason: '2-for-1',
    })
    expect(ledger.positions.getPosition(31337, tokens.aapl)?.balance).toBe(6n)
    expect(epochOf(ledger)).toBe(opened)
    // Sold out: no epoch; bought again: a new one.
    ledger.fills.recordFill(
      fillOf({ txLabel: 'sell-2', isBuy: false, amountIn: 6n, amountOut: usdc('1200') }),
    )
    expect(epochOf(ledger)).toBeUndefined()
    const reopened = seqOf(
      ledger.fills.recordFill(fillOf({ txLabel: 'buy-3', amountOut: 3n, blockHash: bytes32('block-a') })),
    )
    expect(reopened).toBeGreaterThan(opened)
    expect(epochOf(ledger)).toBe(reopened)
    // A fresh open (a restarted daemon) finds the same epoch from the ledger alone.
    ledger.close()
    const again = openLedger({ path })
    expect(epochOf(again)).toBe(reopened)
    // A reorg takes the reopening buy away: flat again; the buy landing again is a new step.
    again.fills.reverseFillsOfTransaction(31337, bytes32('tx/buy-3'), 'a reorg removed its block')
    expect(epochOf(again)).toBeUndefined()
    const relanded = seqOf(
      again.fills.recordFill(
        fillOf({ txLabel: 'buy-3', amountOut: 3n, blockNumber: 101n, blockHash: bytes32('block-b') }),
      ),
    )
    expect(epochOf(again)).toBe(relanded)
    again.close()
  })

  it('a transfer in opens a position too', () => {
    const ledger = openLedger({ path: folder.path() })
    const result = ledger.positions.applyPositionAdjustment({
      chainId: 31337,
      tokenAddress: tokens.aapl,
      kind: 'transfer',
      quantity: 4n,
      cost: usdc('800'),
      token: { ticker: 'AAPL', exchange: 0, tokenKind: 'stock', assetToken: tokens.usdc, assetDecimals: 6 },
      reason: 'moved in from cold storage',
    })
    if (result.status !== 'recorded') throw new Error('expected the transfer recorded')
    expect(epochOf(ledger)).toBe(result.position.lastSeq)
    ledger.close()
  })
})
