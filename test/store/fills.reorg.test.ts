import { parseAssetAmount } from '@stockroute/client/domain/unitStrings.js'
import { describe, expect, it } from 'vitest'
import { openLedger } from '../../src/store/index.js'
import { bytes32, fillOf, ledgerFolder, tokens } from './ledgerFiles.js'

const folder = ledgerFolder()
const usdc = (text: string) => parseAssetAmount(text, 6)

describe('fills and reorgs', () => {
  it('a reversal takes the fill out of positions once; the same log in a new block counts again once', () => {
    const ledger = openLedger({ path: folder.path() })
    const first = fillOf({
      txLabel: 'reorged',
      amountIn: usdc('1000'),
      amountOut: 5n,
      blockHash: bytes32('block-a'),
    })
    ledger.fills.recordFill(fillOf({ txLabel: 'kept', amountIn: usdc('400'), amountOut: 2n }))
    ledger.fills.recordFill(first)
    expect(ledger.positions.getPosition(31337, tokens.aapl)?.balance).toBe(7n)

    const reversed = ledger.fills.reverseFillsOfTransaction(31337, first.txHash, 'a reorg removed block 10')
    expect(reversed.map((fill) => fill.reversalReason)).toEqual(['a reorg removed block 10'])
    expect(ledger.fills.reverseFillsOfTransaction(31337, first.txHash, 'again')).toEqual([])
    expect(ledger.positions.getPosition(31337, tokens.aapl)?.balance).toBe(2n)
    expect(ledger.positions.getPosition(31337, tokens.aapl)?.costBasis).toBe(usdc('400'))
    expect(ledger.fills.listFills()).toHaveLength(1)

    const again = ledger.fills.recordFill({
      ...first,
      blockNumber: first.blockNumber + 1n,
      blockHash: bytes32('block-b'),
    })
    expect(again.status).toBe('recorded')
    expect(
      ledger.fills.recordFill({
        ...first,
        blockNumber: first.blockNumber + 1n,
        blockHash: bytes32('block-b'),
      }).status,
    ).toBe('duplicate')
    expect(ledger.positions.getPosition(31337, tokens.aapl)?.balance).toBe(7n)
    expect(
      ledger.fills.listFills({ includeReversed: true }).map((fill) => fill.reversedAtMs === null),
    ).toEqual([true, false, true])
    expect(ledger.positions.recomputePositions().mismatches).toEqual([])
    ledger.close()
  })

  it('the same log found in another block without a reorg seen (a scan after a restart) moves the fill, no conflict', () => {
    const ledger = openLedger({ path: folder.path() })
    const fill = fillOf({ txLabel: 'moved', amountOut: 3n, blockHash: bytes32('old-block') })
    ledger.fills.recordFill(fill)
    const moved = ledger.fills.recordFill({
      ...fill,
      blockNumber: fill.blockNumber + 2n,
      blockHash: bytes32('new-block'),
    })
    expect(moved.status).toBe('recorded')
    if (moved.status !== 'recorded') throw new Error('unreachable')
    expect(moved.moved?.blockHash).toBe(bytes32('old-block'))
    expect(moved.moved?.reversalReason).toMatch(/moved by a reorg/)
    expect(ledger.positions.getPosition(31337, tokens.aapl)?.balance).toBe(3n)
    expect(ledger.fills.listFills()).toHaveLength(1)
    ledger.close()
  })
})
