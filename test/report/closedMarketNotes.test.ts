import type { ExchangeCode } from '@stockroute/client/domain/markets.js'
import { describe, expect, it } from 'vitest'
import { closedMarketNotes } from '../../src/report/queries/closedMarketNotes.js'
import { positionsReport } from '../../src/report/queries/positions.js'
import type { MarketPriceBook } from '../../src/report/types.js'
import { createTestEngine, engineLedgers } from '../helpers/engine.js'
import { chainWithRouter } from '../helpers/localChains.js'
import { useSandboxService } from '../helpers/sandboxService.js'

// The positions report says when a position is valued at a market price read while its exchange
// was closed (docs/market-sessions.md). The price book's times are fixed instants of 2026.

const service = useSandboxService()
const ledgers = engineLedgers()

// Tuesday 10 March 2026: 12:30 HKT is Hong Kong's lunch break, 10:00 HKT its morning session.
const lunch = Date.parse('2026-03-10T04:30:00Z')
const morning = Date.parse('2026-03-10T02:00:00Z')
const tencentAt = (atMs: number): MarketPriceBook =>
  new Map([['1:0700', { price: '400', currency: 'HKD', atMs }]])

describe('report positions: a price from a closed market', () => {
  it('notes the positions valued at a price read while their exchange was closed, and only those', async () => {
    const chain = chainWithRouter()
    const test = await createTestEngine(service(), {
      ledgerPath: ledgers.path(),
      funding: { asset: '20000' },
    })
    try {
      const buy = await test.engine.execute({
        intentId: 'closed-market-note',
        chainId: chain.chainId,
        ticker: '0700',
        exchange: 1,
        side: 'buy',
        amountIn: '100',
        amountType: 'stocktoken',
      })
      expect(buy.execution.state, buy.execution.reason).toBe('confirmed')
      const report = (marketPrices: MarketPriceBook | undefined) =>
        positionsReport({ ledger: test.ledger, now: () => lunch, marketPrices }, {})

      const atLunch = report(tencentAt(lunch))
      expect(atLunch.tables[0]?.rows[0]).toMatchObject({ ticker: '0700', price_source: 'market' })
      expect(atLunch.notes).toContain(
        `Valuation: price from a closed market (HKEX closed: lunch break) for 0700 (chain ${chain.chainId}): the last price traded before the market closed, not a live one.`,
      )
      const closedNote = (notes: readonly string[]) => notes.filter((note) => note.includes('closed market'))
      expect(closedNote(report(tencentAt(morning)).notes)).toEqual([])
      // Offline (valued at the last fill): no market price, no note.
      expect(closedNote(report(undefined).notes)).toEqual([])
    } finally {
      await test.close()
    }
  })

  it('groups positions by closure and leaves flat positions out', () => {
    const saturday = Date.parse('2026-03-07T15:00:00Z')
    const book: MarketPriceBook = new Map([
      ['0:AAPL', { price: '200', currency: 'USD', atMs: saturday }],
      ['usex:MSFT', { price: '400', currency: 'USD', atMs: saturday }],
      ['USEX:TSLA', { price: '250', currency: 'USD', atMs: saturday }],
      ['1:0700', { price: '400', currency: 'HKD', atMs: morning }],
    ])
    const held = (ticker: string, exchange: ExchangeCode, balance = 1n) => ({
      ticker,
      exchange,
      chainId: 31337,
      balance,
    })
    expect(
      closedMarketNotes({ marketPrices: book }, [
        held('AAPL', 0),
        held('MSFT', 0),
        held('TSLA', 0, 0n),
        held('0700', 1),
        held('NVDA', 0),
      ]),
    ).toEqual([
      'Valuation: price from a closed market (USEX closed: weekend) for AAPL (chain 31337), MSFT (chain 31337): the last price traded before the market closed, not a live one.',
    ])
    expect(closedMarketNotes({}, [held('AAPL', 0)])).toEqual([])
  })
})
