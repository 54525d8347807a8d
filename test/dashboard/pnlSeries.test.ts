import { parseAssetAmount } from '@stockroute/client/domain/unitStrings.js'
import { describe, expect, it } from 'vitest'
import { getPnlSeries } from '../../src/daemon/controlApi/routes/getPnlSeries.js'
import type { ControlRequest } from '../../src/daemon/controlApi/types.js'
import { openLedger } from '../../src/store/index.js'
import { fillOf, ledgerFolder, tokens } from '../store/ledgerFiles.js'

// GET /v1/series/pnl's equity from the fills (`costAtFills`), on a real ledger file: the open
// positions at cost right after each fill of the last day, read back from the cost now. The
// expected costs are worked by hand from the average-cost fold.

const folder = ledgerFolder()
const usdc = (text: string) => parseAssetAmount(text, 6)
const hourMs = 3_600_000

type PnlSeries = {
  series: {
    chainId: number
    points: { costBasis: string }[]
    costAtFills: { atMs: number; costBasis: string }[]
  }[]
}

describe('GET /v1/series/pnl: costAtFills', () => {
  it('gives each fill of the last day its cost after it: buys add, sells and adjustments take their share', () => {
    const start = Date.UTC(2026, 10, 28, 12)
    let nowMs = start - 30 * hourMs
    const ledger = openLedger({ path: folder.path(), now: () => nowMs })
    const record = (label: string, atMs: number, fill: Omit<Parameters<typeof fillOf>[0], 'txLabel'>) => {
      nowMs = atMs
      ledger.fills.recordFill(fillOf({ ...fill, txLabel: label }))
    }
    // 30 h ago, outside the day: 10 AAPL for 1000. Its cost is in every later point.
    record('old', start - 30 * hourMs, { amountIn: usdc('1000'), amountOut: 10n })
    // In the day: 10 more for 2000 (cost 3000, average 150), then 5 sold for 1000 (realizes
    // 1000 − 5 × 150 = 250, cost 2250), then 3 TSLA for 900 (cost 3150).
    record('b2', start - 3 * hourMs, { amountIn: usdc('2000'), amountOut: 10n })
    record('s1', start - 2 * hourMs, { isBuy: false, amountIn: 5n, amountOut: usdc('1000') })
    record('tsla', start - hourMs, {
      stockToken: tokens.tsla,
      ticker: 'TSLA',
      amountIn: usdc('900'),
      amountOut: 3n,
    })
    // After the last fill: TSLA delisted without compensation (realizes −900, its cost leaves).
    nowMs = start - 30 * 60_000
    ledger.positions.applyPositionAdjustment({
      chainId: 31337,
      tokenAddress: tokens.tsla,
      kind: 'delisting',
      compensation: usdc('0'),
      reason: 'delisted',
      reference: 'ca-delist-1',
    })
    nowMs = start
    const reply = getPnlSeries({ ledger, now: () => nowMs, lastReconciliation: () => undefined })({
      query: new URLSearchParams(),
    } as ControlRequest)
    const [series] = (reply.body as PnlSeries).series
    expect(series?.costAtFills).toEqual([
      { atMs: start - 3 * hourMs, costBasis: '3000' },
      { atMs: start - 2 * hourMs, costBasis: '2250' },
      { atMs: start - hourMs, costBasis: '3150' },
    ])
    // The cost now (the delisting took TSLA's 900 away) is the daily figures' and the positions'.
    expect(series?.points.at(-1)?.costBasis).toBe('2250')
    expect(ledger.positions.getPosition(31337, tokens.aapl)?.costBasis).toBe(usdc('2250'))
    ledger.close()
  })

  it('has no point without a fill in the last day', () => {
    const start = Date.UTC(2026, 10, 28, 12)
    let nowMs = start - 30 * hourMs
    const ledger = openLedger({ path: folder.path(), now: () => nowMs })
    ledger.fills.recordFill(fillOf({ txLabel: 'old', amountIn: usdc('1000'), amountOut: 10n }))
    nowMs = start
    const reply = getPnlSeries({ ledger, now: () => nowMs, lastReconciliation: () => undefined })({
      query: new URLSearchParams(),
    } as ControlRequest)
    expect((reply.body as PnlSeries).series).toMatchObject([{ chainId: 31337, costAtFills: [] }])
    ledger.close()
  })
})
