import { getMarketQuote } from '@stockroute/client/api/actions/getMarketQuote.js'
import { getRouterQuote } from '@stockroute/client/api/actions/getRouterQuote.js'
import { createServiceClient } from '@stockroute/client/api/createServiceClient.js'
import type { Price } from '@stockroute/client/domain/units.js'
import { afterEach, describe, expect, it } from 'vitest'
import { createMarketDataCache } from '../../src/daemon/marketData.js'
import { type GuardQuoteParameters, guardQuote } from '../../src/engine/guardQuote.js'
import { checkIntent, type SwapIntent } from '../../src/engine/intent.js'
import { routerQuoteParametersOf } from '../../src/engine/quoteRequest.js'
import { createInstrumentResolver } from '../../src/engine/resolveInstrument.js'
import { defaultEngineSettings } from '../../src/engine/settings.js'
import { createTestEngine, engineLedgers } from '../helpers/engine.js'
import { chainWithRouter } from '../helpers/localChains.js'
import { apiCall, useSandboxService } from '../helpers/sandboxService.js'

// A market quote whose status is not `normal` (the sandbox forced to send one through its
// TEST-ONLY switch) stops new entries on that stock: the guard refuses buys (rule market-status),
// sells still go through. And a market price read while its exchange was closed is noted so in
// the guard's verdict.

const service = useSandboxService({ faults: true })
const ledgers = engineLedgers()

async function forceStatus(symbol: string, status: string | null) {
  const reply = await apiCall(service(), '/sandbox/v1/faults/market-status', { body: { symbol, status } })
  expect(reply.status).toBe(200)
}
afterEach(() => forceStatus('0700', null))

const tencent = (side: 'buy' | 'sell', intentId: string): SwapIntent => ({
  intentId,
  chainId: chainWithRouter().chainId,
  ticker: '0700',
  exchange: 1,
  side,
  amountIn: '100',
  ...(side === 'buy' ? { amountType: 'stocktoken' as const } : {}),
})

describe('a market quote status that is not normal', () => {
  it('rejects a buy of the stock with the status in the reason, nothing signed, and still sells it', async () => {
    const test = await createTestEngine(service(), {
      ledgerPath: ledgers.path(),
      funding: { asset: '20000', tokens: { '0700': 100n } },
    })
    try {
      await forceStatus('0700', 'halted')
      const buy = await test.engine.execute(tencent('buy', 'halted-buy'))
      expect(buy.execution.state).toBe('rejected')
      expect(buy.execution.reason).toBe(
        'guard market-status: market quote status "halted" for 0700 on HKEX: no new entries',
      )
      expect(buy.transactions).toEqual([])
      expect(buy.fills).toEqual([])

      const sell = await test.engine.execute(tencent('sell', 'halted-sell'))
      expect(sell.execution.state, sell.execution.reason).toBe('confirmed')
      expect(sell.fills[0]?.amountIn).toBe(100n)
    } finally {
      await test.close()
    }
  })

  it("is kept by the daemon's market data for the guard, per stock, as each poll sees it", async () => {
    const sandbox = service()
    const client = createServiceClient({ baseUrl: sandbox.url, credentials: sandbox.credential })
    const marketData = createMarketDataCache({ service: client, staleAfterMs: 60_000 })
    const symbols = [
      { market: 'hkex', symbol: '0700' },
      { market: 'hkex', symbol: '9988' },
    ] as const
    const statusOf = (marketSymbol: string) =>
      marketData.marketStatus({ market: 'hkex', marketSymbol })?.status
    expect(statusOf('0700')).toBeUndefined()
    await marketData.poll(symbols)
    expect([statusOf('0700'), statusOf('9988')]).toEqual(['normal', 'normal'])
    await forceStatus('0700', 'suspended')
    await marketData.poll(symbols)
    expect([statusOf('0700'), statusOf('9988')]).toEqual(['suspended', 'normal'])
    await forceStatus('0700', null)
    await marketData.poll(symbols)
    expect(statusOf('0700')).toBe('normal')
  })
})

describe('the guard and the market session of the price', () => {
  it('notes a price read while the exchange was closed in its acceptance and its deviation rejection', async () => {
    const test = await createTestEngine(service(), { ledgerPath: ledgers.path() })
    try {
      const chain = test.engine.chains.get(chainWithRouter().chainId)
      if (!chain) throw new Error('the test engine has no router chain')
      const guardOf = async (intent: SwapIntent) => {
        const instrument = await createInstrumentResolver(test.client)(intent)
        const checked = checkIntent(intent, instrument, chain.asset.decimals)
        const reply = await getRouterQuote(test.client, routerQuoteParametersOf(checked, chain, instrument))
        const quote = await getMarketQuote(test.client, { symbol: '0700', market: 'hkex' })
        const marketPrice = quote.prices.close as Price
        return (overrides: Partial<GuardQuoteParameters> = {}) =>
          guardQuote({
            intent: checked,
            instrument,
            chain,
            reply,
            marketPrice,
            settings: defaultEngineSettings,
            minValidityMs: 0,
            now: Date.now,
            ...overrides,
          })
      }
      const guardBuy = await guardOf(tencent('buy', 'session-buy'))
      // Tuesday 10 March 2026: 12:30 HKT is the lunch break, 10:00 HKT the morning session.
      const lunch = Date.parse('2026-03-10T04:30:00Z')
      const morning = Date.parse('2026-03-10T02:00:00Z')
      const note = 'price from a closed market (HKEX closed: lunch break)'

      const accepted = await guardBuy({ marketPriceAtMs: lunch })
      expect(accepted).toMatchObject({ ok: true, marketNote: note })
      const live = await guardBuy({ marketPriceAtMs: morning })
      expect(live.ok).toBe(true)
      expect(live).not.toHaveProperty('marketNote')

      const far = await guardBuy({ marketPriceAtMs: lunch, marketPrice: 1_000_000_000n as Price })
      expect(far).toMatchObject({ ok: false, rule: 'price-deviation', details: { marketNote: note } })

      expect(await guardBuy({ marketStatus: 'halted', marketPriceAtMs: morning })).toEqual({
        ok: false,
        rule: 'market-status',
        message: 'market quote status "halted" for 0700 on HKEX: no new entries',
        details: { status: 'halted', symbol: '0700', market: 'hkex' },
      })
      const guardSell = await guardOf(tencent('sell', 'session-sell'))
      expect(await guardSell({ marketStatus: 'halted', marketPriceAtMs: morning })).toMatchObject({
        ok: true,
      })
    } finally {
      await test.close()
    }
  })
})
