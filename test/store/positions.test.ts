import { parseAssetAmount, parseShareQuantity } from '@stockroute/client/domain/unitStrings.js'
import { toAssetAmount } from '@stockroute/client/domain/units.js'
import Database from 'better-sqlite3'
import { describe, expect, it } from 'vitest'
import { openLedger, PositionError } from '../../src/store/index.js'
import { fillOf, ledgerFolder, tokens } from './ledgerFiles.js'

const folder = ledgerFolder()
const usdc = (text: string) => parseAssetAmount(text, 6)

describe('positions: average cost and realized PnL', () => {
  it('StockToken: buys average, a sell realizes against average cost, a split scales balance and average price', () => {
    const ledger = openLedger({ path: folder.path() })
    const buy = (label: string, shares: bigint, paid: string) =>
      ledger.fills.recordFill(
        fillOf({ txLabel: label, isBuy: true, amountIn: usdc(paid), amountOut: shares }),
      )
    const sell = (label: string, shares: bigint, received: string) =>
      ledger.fills.recordFill(
        fillOf({ txLabel: label, isBuy: false, amountIn: shares, amountOut: usdc(received) }),
      )

    buy('b1', 10n, '1000')
    buy('b2', 10n, '2000')
    expect(ledger.positions.getPosition(31337, tokens.aapl)).toMatchObject({
      balance: 20n,
      costBasis: usdc('3000'),
      avgPrice: usdc('150'),
      realizedPnl: 0n,
    })
    sell('s1', 5n, '1000') // 5 × 200 received, cost 5 × 150
    expect(ledger.positions.getPosition(31337, tokens.aapl)).toMatchObject({
      balance: 15n,
      avgPrice: usdc('150'),
      realizedPnl: usdc('250'),
    })
    ledger.positions.applyPositionAdjustment({
      chainId: 31337,
      tokenAddress: tokens.aapl,
      kind: 'split',
      numerator: 2n,
      denominator: 1n,
      reason: '2-for-1 split',
      reference: 'ca-split-1',
    })
    expect(ledger.positions.getPosition(31337, tokens.aapl)).toMatchObject({
      balance: 30n,
      costBasis: usdc('2250'),
      avgPrice: usdc('75'),
      realizedPnl: usdc('250'),
    })
    sell('s2', 30n, '3000') // 30 × 100 received, cost 2250
    expect(ledger.positions.getPosition(31337, tokens.aapl)).toMatchObject({
      balance: 0n,
      costBasis: 0n,
      avgPrice: 0n,
      realizedPnl: usdc('1000'),
    })
    ledger.close()
  })

  it('ShareToken: average price is per whole share, in an 18-decimal asset', () => {
    const ledger = openLedger({ path: folder.path() })
    const dai = (text: string) => parseAssetAmount(text, 18)
    const fill = (label: string, isBuy: boolean, shares: string, asset: string) =>
      fillOf({
        txLabel: label,
        chainId: 8453,
        stockToken: tokens.aapls,
        ticker: 'AAPLs',
        tokenKind: 'share',
        assetDecimals: 18,
        isBuy,
        amountIn: isBuy ? dai(asset) : parseShareQuantity(shares),
        amountOut: isBuy ? parseShareQuantity(shares) : dai(asset),
      })
    ledger.fills.recordFill(fill('half', true, '0.5', '100.5'))
    expect(ledger.positions.getPosition(8453, tokens.aapls)).toMatchObject({
      balance: parseShareQuantity('0.5'),
      avgPrice: dai('201'),
      tokenKind: 'share',
    })
    ledger.fills.recordFill(fill('quarter', false, '0.25', '60'))
    expect(ledger.positions.getPosition(8453, tokens.aapls)).toMatchObject({
      balance: parseShareQuantity('0.25'),
      avgPrice: dai('201'),
      realizedPnl: dai('9.75'), // 60 - 0.25 × 201
    })
    ledger.close()
  })

  it('delisting zeroes the position and realizes compensation minus cost; adjustments apply once per reference', () => {
    const ledger = openLedger({ path: folder.path() })
    ledger.fills.recordFill(
      fillOf({ txLabel: 't', stockToken: tokens.tsla, ticker: 'TSLA', amountIn: usdc('900'), amountOut: 3n }),
    )
    const delisting = {
      chainId: 31337,
      tokenAddress: tokens.tsla,
      kind: 'delisting',
      compensation: usdc('600'),
      reason: 'delisted',
      reference: 'ca-delist-1',
    } as const
    const first = ledger.positions.applyPositionAdjustment(delisting)
    expect(first.status).toBe('recorded')
    expect(ledger.positions.getPosition(31337, tokens.tsla)).toMatchObject({
      balance: 0n,
      costBasis: 0n,
      realizedPnl: -usdc('300'),
    })
    expect(ledger.positions.applyPositionAdjustment(delisting)).toEqual({
      status: 'duplicate',
      adjustmentId: first.status === 'recorded' ? first.adjustmentId : -1,
    })
    expect(ledger.positions.getPosition(31337, tokens.tsla)?.realizedPnl).toBe(-usdc('300'))
    let error: unknown
    try {
      ledger.positions.applyPositionAdjustment({ ...delisting, tokenAddress: tokens.aapl, reference: 'x' })
    } catch (caught) {
      error = caught
    }
    expect(error).toBeInstanceOf(PositionError)
    expect((error as PositionError).code).toBe('NO_POSITION')
    ledger.close()
  })

  it('transfers: in at a cost, out at the cost basis without PnL, never more than the balance, never into a short', () => {
    const ledger = openLedger({ path: folder.path() })
    const key = { chainId: 31337, tokenAddress: tokens.tsla }
    const token = {
      ticker: 'TSLA',
      exchange: 0,
      tokenKind: 'stock',
      assetToken: tokens.usdc,
      assetDecimals: 6,
    } as const
    const refusal = (run: () => unknown) => {
      try {
        run()
      } catch (error) {
        if (error instanceof PositionError) return error.code
        throw error
      }
      return 'applied'
    }
    const transfer = (quantity: bigint, extra: object = {}) =>
      ledger.positions.applyPositionAdjustment({
        ...key,
        kind: 'transfer',
        quantity,
        reason: 'wallet move',
        ...extra,
      })
    expect(refusal(() => transfer(5n))).toBe('NO_POSITION') // no token info, no position
    transfer(3n, { token, cost: usdc('300') })
    expect(ledger.positions.getPosition(31337, tokens.tsla)).toMatchObject({
      balance: 3n,
      avgPrice: usdc('100'),
    })
    expect(refusal(() => transfer(-4n))).toBe('BAD_ADJUSTMENT')
    expect(refusal(() => transfer(0n))).toBe('BAD_ADJUSTMENT')
    transfer(-1n)
    expect(ledger.positions.getPosition(31337, tokens.tsla)).toMatchObject({
      balance: 2n,
      costBasis: usdc('200'),
      realizedPnl: 0n,
    })
    transfer(-2n)
    // Sold 1 more than held (bought outside the ledger): a short of 1, which tokens cannot flow into.
    ledger.fills.recordFill(
      fillOf({
        txLabel: 'short',
        stockToken: tokens.tsla,
        ticker: 'TSLA',
        isBuy: false,
        amountIn: 1n,
        amountOut: usdc('90'),
      }),
    )
    expect(ledger.positions.getPosition(31337, tokens.tsla)).toMatchObject({
      balance: -1n,
      avgPrice: usdc('90'),
    })
    expect(refusal(() => transfer(1n))).toBe('BAD_ADJUSTMENT')
    expect(ledger.positions.recomputePositions().mismatches).toEqual([])
    ledger.close()
  })

  it('locked and available', () => {
    const ledger = openLedger({ path: folder.path() })
    ledger.fills.recordFill(fillOf({ txLabel: 'l', amountOut: 10n }))
    expect(ledger.positions.setLockedBalance(31337, tokens.aapl, 4n)).toMatchObject({
      balance: 10n,
      locked: 4n,
      available: 6n,
    })
    ledger.fills.recordFill(fillOf({ txLabel: 'l2', amountOut: 1n }))
    expect(ledger.positions.getPosition(31337, tokens.aapl)).toMatchObject({
      balance: 11n,
      locked: 4n,
      available: 7n,
    })
    expect(ledger.positions.recomputePositions().mismatches).toEqual([])
    expect(ledger.positions.getPosition(31337, tokens.aapl)?.locked).toBe(4n)
    ledger.close()
  })

  it('recomputePositions finds and repairs a position that drifted from its fills', () => {
    const path = folder.path()
    const ledger = openLedger({ path })
    ledger.fills.recordFill(fillOf({ txLabel: 'r1', amountIn: toAssetAmount(1_000n), amountOut: 10n }))
    ledger.close()
    const raw = new Database(path)
    raw.prepare("UPDATE positions SET balance = '11'").run()
    raw.close()
    const reopened = openLedger({ path })
    const { mismatches, positions } = reopened.positions.recomputePositions()
    expect(mismatches).toHaveLength(1)
    expect(mismatches[0]?.stored?.balance).toBe(11n)
    expect(mismatches[0]?.recomputed?.balance).toBe(10n)
    expect(positions[0]?.balance).toBe(10n)
    expect(reopened.positions.recomputePositions().mismatches).toEqual([])
    reopened.close()
  })
})
