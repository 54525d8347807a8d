import fc from 'fast-check'
import type { Address } from 'viem'
import { describe, expect, it } from 'vitest'
import { observeEquityMarks, type RiskLimits } from '../../src/engine/index.js'
import { type EquityMark, type Notional, openLedger } from '../../src/store/index.js'
import { fillOf, ledgerFolder, tokens } from '../store/ledgerFiles.js'

// The drawdown rule against a straightforward replay: random sequences of equity marks (two chains,
// assets of 6 and 18 decimals) and of realized PnL (round trips of fills) are observed on a real
// ledger file, one observation per instant as the daemon makes them; the peaks the ledger keeps, the
// drawdown each observation reads and the halt it latches (or not) must equal what replaying the
// ledger's marks, in order, gives by hand: equity = capital + realized + Σ (market value − cost basis).

const folder = ledgerFolder()
const e18 = 10n ** 18n

type ChainAsset = { chainId: number; assetToken: Address; assetDecimals: number }
const assets: ChainAsset[] = [
  { chainId: 31337, assetToken: tokens.usdc, assetDecimals: 6 },
  { chainId: 8453, assetToken: '0x2000000000000000000000000000000000000018', assetDecimals: 18 },
]

/** One instant: the marks taken (per chain asset: cost basis and market value, whole units), and a round trip's PnL. */
const step = fc.record({
  marks: fc.array(
    fc.record({
      asset: fc.integer({ min: 0, max: assets.length - 1 }),
      costBasis: fc.bigInt({ min: 0n, max: 20_000n }),
      // Market value from 40% to 160% of cost, in hundredths of a unit.
      factorPct: fc.integer({ min: 40, max: 160 }),
    }),
    { maxLength: 2 },
  ),
  /** A buy and a sell of the same shares on chain 31337: PnL in whole units (sell proceeds − cost). */
  roundTrip: fc.option(fc.integer({ min: -3_000, max: 3_000 }), { nil: undefined }),
})

const scaled = (amount: bigint, decimals: number) => amount * 10n ** BigInt(18 - decimals)

describe('drawdown against a replay of the equity marks', () => {
  it('keeps the peak, reads the drawdown and latches the halt as the replay says', () => {
    let run = 0
    fc.assert(
      fc.property(
        fc.bigInt({ min: 1_000n, max: 100_000n }),
        fc.integer({ min: 100, max: 5_000 }),
        fc.bigInt({ min: 1_000n, max: 50_000n }),
        fc.integer({ min: 100, max: 5_000 }),
        fc.array(step, { minLength: 1, maxLength: 12 }),
        (capitalUnits, centiPct, chainCapitalUnits, chainCentiPct, steps) => {
          run += 1
          const start = 1_750_000_000_000
          const ledger = openLedger({ path: folder.migratedPath(`property-${run}.sqlite`), now: () => start })
          const capital = (capitalUnits * e18) as Notional
          const chainCapital = (chainCapitalUnits * e18) as Notional
          const limits: RiskLimits = {
            capital,
            maxDrawdownPct: centiPct / 100,
            perChain: { 31337: { capital: chainCapital, maxDrawdownPct: chainCentiPct / 100 } },
          }
          try {
            const instants: number[] = []
            const realizedAt: bigint[] = []
            let realized = 0n
            const readings: { all: bigint | undefined; chain: bigint | undefined }[] = []
            steps.forEach((current, index) => {
              const atMs = start + (index + 1) * 60_000
              if (current.roundTrip !== undefined) {
                // Buy 5 shares for 10,000 (fee included), sell them for 10,000 + PnL: realized = PnL.
                const label = `${run}/${index}`
                ledger.fills.recordFill(
                  fillOf({ txLabel: `buy/${label}`, amountIn: 10_000_000_000n, amountOut: 5n }),
                )
                ledger.fills.recordFill(
                  fillOf({
                    txLabel: `sell/${label}`,
                    isBuy: false,
                    amountIn: 5n,
                    amountOut: BigInt(10_000 + current.roundTrip) * 1_000_000n,
                  }),
                )
                realized += BigInt(current.roundTrip) * e18
              }
              // One mark per chain asset at an instant (the marker sums a chain asset's positions).
              const marks = new Map<number, EquityMark>()
              for (const { asset: which, costBasis, factorPct } of current.marks) {
                const asset = assets[which] as ChainAsset
                const unit = 10n ** BigInt(asset.assetDecimals)
                marks.set(which, {
                  ...asset,
                  atMs,
                  costBasis: costBasis * unit,
                  marketValue: (costBasis * unit * BigInt(factorPct)) / 100n,
                  positions: 1,
                  unpriced: 0,
                })
              }
              if (marks.size > 0) ledger.equityMarks.record([...marks.values()])
              const { equity } = observeEquityMarks(ledger, limits, { atMs, marks: [...marks.values()] })
              instants.push(atMs)
              realizedAt.push(realized)
              readings.push({
                all: equity.find((reading) => reading.chainId === null)?.drawdownCentiPct,
                chain: equity.find((reading) => reading.chainId === 31337)?.drawdownCentiPct,
              })
            })

            // The replay: the marks as the ledger lists them, grouped by instant, in order.
            const stored = ledger.equityMarks.list()
            const replay = (scope: number | null, scopeCapital: bigint, scopeCentiPct: number) => {
              let peak: bigint | undefined
              let pnl = 0n
              let firstBreach: bigint | undefined
              const drawdowns: bigint[] = []
              instants.forEach((atMs, index) => {
                const unrealized = stored
                  .filter((mark) => mark.atMs === atMs && (scope === null || mark.chainId === scope))
                  .reduce(
                    (sum, mark) => sum + scaled(mark.marketValue - mark.costBasis, mark.assetDecimals),
                    0n,
                  )
                // All realized PnL of these fills is chain 31337's.
                pnl = (scope === null || scope === 31337 ? (realizedAt[index] ?? 0n) : 0n) + unrealized
                peak = peak === undefined || pnl > peak ? pnl : peak
                const fall = peak - pnl
                const base = scopeCapital + peak
                const drawdown = fall <= 0n ? 0n : base <= 0n ? 10_000n : (fall * 10_000n) / base
                drawdowns.push(drawdown)
                const breached = fall > 0n && (base <= 0n || fall * 10_000n >= BigInt(scopeCentiPct) * base)
                if (breached && firstBreach === undefined) firstBreach = drawdown
              })
              return { peak, pnl, drawdowns, firstBreach }
            }
            const all = replay(null, capital, centiPct)
            const chain = replay(31337, chainCapital, chainCentiPct)

            const peaks = ledger.risk.equityPeaks()
            const peakOf = (chainId: number | null) => peaks.find((peak) => peak.chainId === chainId)
            expect(peakOf(null)).toMatchObject({ peakPnl: all.peak, lastPnl: all.pnl })
            expect(peakOf(31337)).toMatchObject({ peakPnl: chain.peak, lastPnl: chain.pnl })
            expect(readings.map((reading) => reading.all)).toEqual(all.drawdowns)
            expect(readings.map((reading) => reading.chain)).toEqual(chain.drawdowns)

            const halts = ledger.risk.entryHalts()
            const haltOf = (chainId: number | null) => halts.find((halt) => halt.chainId === chainId)
            const percent = (centi: bigint) => `${centi / 100n}.${(centi % 100n) / 10n}%`
            for (const [scope, expected] of [
              [null, all],
              [31337, chain],
            ] as const) {
              const halt = haltOf(scope)
              if (expected.firstBreach === undefined) expect(halt).toBeUndefined()
              else {
                // Latched once, at the first breach: its reason keeps that observation's drawdown.
                expect(halt?.rule).toBe('maxDrawdownPct')
                expect(halt?.reason).toMatch(
                  new RegExp(`^drawdown ${percent(expected.firstBreach).replace('.', '\\.')} on `),
                )
              }
            }
            // Only drawdown halts: the realized-loss rule has no limit here.
            expect(halts.every((halt) => halt.rule === 'maxDrawdownPct')).toBe(true)
          } finally {
            ledger.close()
          }
        },
      ),
      { numRuns: 40 },
    )
  })
})
