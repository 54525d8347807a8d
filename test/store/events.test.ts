import { describe, expect, it } from 'vitest'
import { openLedger } from '../../src/store/index.js'
import { fillOf, ledgerFolder } from './ledgerFiles.js'

// The ledger's event stream: written by triggers in the transaction of the write they describe
// (a rolled-back write leaves no event), numbered for ever, read back in order, by kind.

const folder = ledgerFolder()

describe('events', () => {
  it('records transitions, fills, reversals, halts and resumes with the write, appended kinds too, in one numbering that survives a re-open', () => {
    const path = folder.path()
    const ledger = openLedger({ path })
    const execution = ledger.executions.createExecution({
      intentId: 'schedule:dca:1',
      chainId: 31337,
      ticker: 'AAPL',
      exchange: 0,
      side: 'buy',
      amountIn: '300',
      amountType: 'stablecoin',
      strategy: 'dca',
    })
    ledger.executions.transition(execution.id, 'intent', 'quoting', 'requesting a router quote')
    const fill = fillOf({ txLabel: 'one', amountOut: 3n })
    ledger.fills.recordFill(fill)
    ledger.fills.reverseFillsOfTransaction(fill.chainId, fill.txHash, 'reorg at block 9')
    ledger.risk.halt('operator: test')
    ledger.risk.resume('operator: test over')
    ledger.events.append('discrepancy', { chainId: 31337, data: { ticker: 'AAPL', ledger: 3n, chain: '2' } })

    const events = ledger.events.listAfter(0)
    expect(events.map((event) => event.kind)).toEqual([
      'execution',
      'execution',
      'fill',
      'fill_reversed',
      'halt',
      'resume',
      'discrepancy',
    ])
    expect(events.map((event) => event.id)).toEqual([1, 2, 3, 4, 5, 6, 7])
    expect(events[0]).toMatchObject({
      chainId: 31337,
      executionId: execution.id,
      data: {
        executionId: execution.id,
        strategy: 'dca',
        from: null,
        to: 'intent',
        ticker: 'AAPL',
        side: 'buy',
      },
    })
    expect(events[1]?.data).toMatchObject({
      from: 'intent',
      to: 'quoting',
      reason: 'requesting a router quote',
    })
    expect(events[2]?.data).toMatchObject({
      txHash: fill.txHash,
      amountOut: '3',
      side: 'buy',
      tokenKind: 'stock',
    })
    expect(events[3]?.data).toMatchObject({ txHash: fill.txHash, reason: 'reorg at block 9' })
    expect(events[4]?.data).toEqual({ reason: 'operator: test' })
    expect(events[6]?.data).toEqual({ ticker: 'AAPL', ledger: '3', chain: '2' })

    expect(ledger.events.listAfter(2, { limit: 2 }).map((event) => event.id)).toEqual([3, 4])
    expect(ledger.events.listAfter(0, { kinds: ['halt', 'resume'] }).map((event) => event.id)).toEqual([5, 6])
    expect(ledger.events.listAfter(0, { kinds: ['execution', 'resume'], limit: 2 }).map((e) => e.id)).toEqual(
      [1, 2],
    )
    expect(ledger.events.latestId()).toBe(7)
    ledger.close()

    const reopened = openLedger({ path })
    reopened.risk.halt('again')
    expect(reopened.events.latestId()).toBe(8)
    expect(reopened.events.listAfter(7).map((event) => event.kind)).toEqual(['halt'])
    reopened.close()
  })

  it('writes no event for a write that rolls back', () => {
    const ledger = openLedger({ path: folder.path() })
    expect(() =>
      ledger.atomically(() => {
        ledger.risk.halt('inside a failed transaction')
        throw new Error('rolled back')
      }),
    ).toThrow('rolled back')
    expect(ledger.events.latestId()).toBe(0)
    expect(ledger.risk.isHalted()).toBe(false)
    ledger.close()
  })

  it('keeps strategy switches across a re-open, the last one winning', () => {
    const path = folder.path()
    const ledger = openLedger({ path })
    ledger.strategySwitches.set('dca', false, 'operator: earnings')
    ledger.strategySwitches.set('dca', true, 'operator: back on')
    ledger.strategySwitches.set('grid', false, 'operator: off')
    ledger.close()
    const reopened = openLedger({ path })
    expect(reopened.strategySwitches.list()).toMatchObject([
      { strategy: 'dca', enabled: true, reason: 'operator: back on' },
      { strategy: 'grid', enabled: false, reason: 'operator: off' },
    ])
    reopened.close()
  })
})
