import { parseAssetAmount } from '@stockroute/client/domain/unitStrings.js'
import { toAssetAmount } from '@stockroute/client/domain/units.js'
import { parseUnits } from 'viem'
import { describe, expect, it } from 'vitest'
import { openLedger, toNotional } from '../../src/store/index.js'
import { bytes32, fillOf, ledgerFolder, tokens } from './ledgerFiles.js'

const folder = ledgerFolder()
const e18 = (text: string) => parseUnits(text, 18)

describe('notionalSince', () => {
  it('sums fills since a time and in-flight executions, across chains with 6- and 18-decimal assets', () => {
    let clock = 1_000
    const ledger = openLedger({ path: folder.path(), now: () => clock })
    // Yesterday: not counted for today.
    ledger.fills.recordFill(fillOf({ txLabel: 'old', amountIn: parseAssetAmount('5000', 6) }))
    clock = 10_000
    // Today: a buy of 1000 (6 decimals) on 31337 and a sell receiving 250.5 (18 decimals) on 8453.
    ledger.fills.recordFill(fillOf({ txLabel: 'buy', amountIn: parseAssetAmount('1000', 6), amountOut: 5n }))
    ledger.fills.recordFill(
      fillOf({
        txLabel: 'sell',
        chainId: 8453,
        stockToken: tokens.tsla,
        ticker: 'TSLA',
        assetDecimals: 18,
        isBuy: false,
        amountIn: 1n,
        amountOut: parseAssetAmount('250.5', 18),
      }),
    )
    // In flight on 31337: one submitted execution with a quote of 400, not filled yet.
    const create = (intentId: string) =>
      ledger.executions.createExecution({
        intentId,
        chainId: 31337,
        ticker: 'AAPL',
        exchange: 0,
        side: 'buy',
        amountIn: '400',
        amountType: 'stablecoin',
      }).id
    const inFlight = create('in-flight')
    ledger.executions.transition(inFlight, 'intent', 'quoting', 'go')
    ledger.executions.transition(inFlight, 'quoting', 'quoted', 'quote', {
      quoteId: bytes32('q-in-flight'),
      notional: { amount: parseAssetAmount('400', 6), decimals: 6 },
    })
    ledger.executions.transition(inFlight, 'quoted', 'submitted', 'sent')
    // Its fill is already recorded (before the confirmed transition): counted once, as filled.
    const filled = create('filled-not-confirmed')
    ledger.executions.transition(filled, 'intent', 'quoting', 'go')
    ledger.executions.transition(filled, 'quoting', 'quoted', 'quote', {
      quoteId: bytes32('q-filled'),
      notional: { amount: parseAssetAmount('300', 6), decimals: 6 },
    })
    ledger.fills.recordFill(
      fillOf({ txLabel: 'q-filled', quoteId: bytes32('q-filled'), amountIn: parseAssetAmount('300', 6) }),
    )

    expect(ledger.risk.notionalSince(undefined, 10_000)).toEqual({
      filled: e18('1550.5'),
      inFlight: e18('400'),
      total: e18('1950.5'),
    })
    expect(ledger.risk.notionalSince(31337, 10_000)).toEqual({
      filled: e18('1300'),
      inFlight: e18('400'),
      total: e18('1700'),
    })
    expect(ledger.risk.notionalSince(8453, 0).total).toBe(e18('250.5'))
    expect(ledger.risk.notionalSince(undefined, 0).filled).toBe(e18('6550.5'))
    ledger.executions.transition(inFlight, 'submitted', 'expired', 'cancelled by replacement')
    expect(ledger.risk.notionalSince(31337, 10_000).inFlight).toBe(0n)
    ledger.close()
  })

  it('scales to 18 decimals exactly, rounding up beyond 18', () => {
    expect(toNotional(toAssetAmount(1n), 6)).toBe(10n ** 12n)
    expect(toNotional(toAssetAmount(1n), 18)).toBe(1n)
    expect(toNotional(toAssetAmount(1n), 20)).toBe(1n)
    expect(toNotional(toAssetAmount(200n), 20)).toBe(2n)
  })
})

describe('kill switch', () => {
  it('is latched: it stays halted across re-opens until resumed, and other handles see it at once', () => {
    const path = folder.path()
    const daemon = openLedger({ path, now: () => 5 })
    expect(daemon.risk.isHalted()).toBe(false)
    const cli = openLedger({ path, now: () => 7 })
    expect(cli.risk.halt('operator: stockroute halt')).toEqual({
      halted: true,
      reason: 'operator: stockroute halt',
      changedAtMs: 7,
    })
    expect(daemon.risk.isHalted()).toBe(true)
    // A second halt keeps the first reason and time.
    daemon.risk.halt('again')
    expect(daemon.risk.killSwitch()).toMatchObject({ reason: 'operator: stockroute halt', changedAtMs: 7 })
    cli.close()
    daemon.close()

    const restarted = openLedger({ path })
    expect(restarted.risk.isHalted()).toBe(true)
    expect(restarted.risk.resume('operator: stockroute resume').halted).toBe(false)
    restarted.close()
    const again = openLedger({ path })
    expect(again.risk.isHalted()).toBe(false)
    expect(again.database.prepare('SELECT action, reason FROM kill_switch_events ORDER BY id').all()).toEqual(
      [
        { action: 'halt', reason: 'operator: stockroute halt' },
        { action: 'halt', reason: 'again' },
        { action: 'resume', reason: 'operator: stockroute resume' },
      ],
    )
    expect(() => again.risk.halt('  ')).toThrow(/say why/)
    again.close()
  })
})

describe('checkpoints', () => {
  it('only move forward unless rewound, per chain, and survive a re-open', () => {
    const path = folder.path()
    const ledger = openLedger({ path })
    expect(ledger.checkpoints.getCheckpoint(31337)).toBeUndefined()
    expect(ledger.checkpoints.advanceCheckpoint(31337, 100n)).toBe(100n)
    expect(ledger.checkpoints.advanceCheckpoint(31337, 90n)).toBe(100n)
    expect(ledger.checkpoints.advanceCheckpoint(8453, 7n)).toBe(7n)
    expect(ledger.checkpoints.rewindCheckpoint(31337, 95n)).toBe(95n)
    expect(ledger.checkpoints.rewindCheckpoint(31337, 120n)).toBe(95n)
    ledger.close()
    const reopened = openLedger({ path })
    expect(reopened.checkpoints.getCheckpoint(31337)).toBe(95n)
    expect(reopened.checkpoints.getCheckpoint(8453)).toBe(7n)
    reopened.close()
  })
})
