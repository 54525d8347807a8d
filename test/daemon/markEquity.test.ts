import { parsePrice } from '@stockroute/client/domain/unitStrings.js'
import { describe, expect, it } from 'vitest'
import { createEquityMarker } from '../../src/daemon/markEquity.js'
import { openLedger } from '../../src/store/index.js'
import type { MarketPrice } from '../../src/strategy/types.js'
import { fillOf, ledgerFolder, tokens } from '../store/ledgerFiles.js'

// The daemon's equity marks on a real ledger file: the open positions valued at the price cache's
// fresh prices, per chain and asset, at most once a minute.
const folder = ledgerFolder()

describe('equity marks', () => {
  it('values the open positions at the fresh market price, at the last fill when stale, once a minute', () => {
    const ledger = openLedger({ path: folder.path() })
    try {
      const now = 1_750_000_100_000
      const prices = new Map<string, MarketPrice>()
      const mark = createEquityMarker({ ledger, marketData: { snapshot: () => prices } })
      // Nothing open: nothing marked, and the first position is marked at the next call.
      expect(mark(now)).toEqual([])
      // 5 AAPL for 1000 USDC (fee included): 200 USDC a share at cost.
      ledger.fills.recordFill(fillOf({ txLabel: 'buy-1' }))
      prices.set('usex:AAPL', {
        market: 'usex',
        symbol: 'AAPL',
        price: parsePrice('210'),
        atMs: now,
        stale: false,
      })
      expect(mark(now + 1)).toEqual([
        {
          chainId: 31337,
          assetToken: tokens.usdc,
          assetDecimals: 6,
          atMs: now + 1,
          costBasis: 1_000_000_000n,
          marketValue: 1_050_000_000n,
          positions: 1,
          unpriced: 0,
        },
      ])
      // Within the minute: no new mark.
      expect(mark(now + 30_000)).toEqual([])
      // A stale price is not traded on, nor marked at: the last fill's price instead.
      prices.set('usex:AAPL', {
        market: 'usex',
        symbol: 'AAPL',
        price: parsePrice('210'),
        atMs: now,
        stale: true,
      })
      expect(mark(now + 60_001)).toMatchObject([{ marketValue: 1_000_000_000n, unpriced: 1 }])
      expect(ledger.equityMarks.list().map((entry) => [entry.atMs, entry.marketValue])).toEqual([
        [now + 1, 1_050_000_000n],
        [now + 60_001, 1_000_000_000n],
      ])
      expect(ledger.equityMarks.list({ sinceMs: now + 2 })).toHaveLength(1)
    } finally {
      ledger.close()
    }
  })
})
