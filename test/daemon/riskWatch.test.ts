import { parsePrice } from '@stockroute/client/domain/unitStrings.js'
import { parseUnits } from 'viem'
import { describe, expect, it } from 'vitest'
import { createEquityMarker } from '../../src/daemon/markEquity.js'
import { createRiskWatch } from '../../src/daemon/riskWatch.js'
import type { ChainRuntime, EngineSettings } from '../../src/engine/index.js'
import { type EquityMark, type Notional, openLedger } from '../../src/store/index.js'
import type { MarketPrice } from '../../src/strategy/types.js'
import { fillOf, ledgerFolder } from '../store/ledgerFiles.js'

// The daemon's equity marker feeding the drawdown rule, on a real ledger file: every valuation
// (also one that finds nothing open, and a forced one within the interval) is observed; a drawdown
// past the limit latches one entry halt and prints one operator line.

const folder = ledgerFolder()
const units = (text: string) => parseUnits(text, 18) as Notional

function engineWith(risk: EngineSettings['risk']) {
  const chains = new Map([[31337, { asset: { symbol: 'USDC' } } as unknown as ChainRuntime]])
  return { settings: { risk } as EngineSettings, chains }
}

describe('risk watch', () => {
  it('observes each valuation of the marker and halts new entries once at maxDrawdownPct', () => {
    const now = 1_750_000_100_000
    const ledger = openLedger({ path: folder.path(), now: () => now })
    const lines: string[] = []
    const observed: { marks: EquityMark[]; atMs: number }[] = []
    try {
      expect(
        createRiskWatch({ ledger, engine: engineWith({ maxDailyNotional: units('1') }) }),
      ).toBeUndefined()
      const watch = createRiskWatch({
        ledger,
        engine: engineWith({ capital: units('1000'), maxDrawdownPct: 10 }),
        write: (line) => lines.push(line),
      })
      expect(watch?.marksAfterFills).toBe(true)
      const prices = new Map<string, MarketPrice>()
      const setAapl = (price: string) =>
        prices.set('usex:AAPL', {
          market: 'usex',
          symbol: 'AAPL',
          price: parsePrice(price),
          atMs: now,
          stale: false,
        })
      const mark = createEquityMarker({
        ledger,
        marketData: { snapshot: () => prices },
        onMark: (marks, atMs) => {
          observed.push({ marks, atMs })
          watch?.observe(marks, atMs)
        },
      })
      // Flat: observed with no mark, equity = capital.
      expect(mark(now)).toEqual([])
      expect(observed).toEqual([{ marks: [], atMs: now }])
      expect(ledger.risk.equityPeaks()).toMatchObject([{ chainId: null, peakPnl: 0n, lastPnl: 0n }])

      // 5 AAPL for 1000 USDC; at 200 a share the positions are worth their cost.
      ledger.fills.recordFill(fillOf({ txLabel: 'buy-1' }))
      setAapl('200')
      expect(mark(now + 1)).toMatchObject([{ costBasis: 1_000_000_000n, marketValue: 1_000_000_000n }])
      // Within the interval: nothing, unless forced (after fills).
      setAapl('170')
      expect(mark(now + 2)).toEqual([])
      expect(mark(now + 3, { force: true })).toMatchObject([{ marketValue: 850_000_000n }])
      expect(observed.map((entry) => entry.atMs)).toEqual([now, now + 1, now + 3])
      // 150 of 1,000 lost: 15% from the peak.
      const [halt, ...more] = ledger.risk.entryHalts()
      expect(more).toEqual([])
      expect(halt).toMatchObject({
        chainId: null,
        rule: 'maxDrawdownPct',
        reason:
          'drawdown 15.0% on all chains from the equity peak 1,000 USD (equity 850 USD) reaches maxDrawdownPct 10%',
        figures: { drawdownPct: '15', peakEquity: '1000', equity: '850', capital: '1000' },
      })
      expect(lines).toEqual([
        `${new Date(halt?.atMs ?? 0).toISOString().slice(11, 19)} new entries halted (buys refused, sells still run until \`stockroute resume\`): ${halt?.reason}`,
      ])
      // Deeper still: latched once, the first reason kept.
      setAapl('100')
      mark(now + 4, { force: true })
      expect(ledger.risk.entryHalts()).toEqual([halt])
      expect(lines).toHaveLength(1)

      // A resume clears the halt and the peak: the next valuation starts a new one.
      ledger.risk.resume('operator')
      expect(ledger.risk.equityPeaks()).toEqual([])
      mark(now + 5, { force: true })
      expect(ledger.risk.entryHalts()).toEqual([])
      expect(ledger.risk.equityPeaks()).toMatchObject([
        { chainId: null, peakPnl: -units('500') },
        { chainId: 31337 },
      ])
    } finally {
      ledger.close()
    }
  })
})
