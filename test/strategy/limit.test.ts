import { parsePrice } from '@stockroute/client/domain/unitStrings.js'
import { describe, expect, it } from 'vitest'
import type { Instrument } from '../../src/engine/index.js'
import { checkIntent, type SwapIntent } from '../../src/engine/index.js'
import { createLimitStrategy, StrategyConfigError } from '../../src/strategy/index.js'
import { marketPrice, snapshot } from './snapshot.js'

// A limit strategy asks once the fresh market price has crossed its limit, and always with the
// limit attached, so the engine's guard holds the firm router price to it too.

const nowMs = Date.parse('2026-01-05T02:00:00Z')

const buy0700 = {
  id: 'buy-0700',
  chainId: 31337,
  ticker: '0700',
  exchange: 1,
  side: 'buy',
  amountIn: '100',
  amountType: 'stocktoken',
  limitPrice: '418.6',
} as const

const hkInstrument: Instrument = {
  chainId: 31337,
  ticker: '0700',
  exchange: 1,
  market: 'hkex',
  tokenAddress: '0x1000000000000000000000000000000000000001',
  tokenKind: 'stock',
  lotSize: 100n,
  spreadTableCode: '1',
  marketSymbol: '0700',
}

function configError(run: () => unknown): StrategyConfigError {
  try {
    run()
  } catch (error) {
    if (error instanceof StrategyConfigError) return error
    throw error
  }
  throw new Error('expected a StrategyConfigError, nothing was thrown')
}

describe('createLimitStrategy', () => {
  it('buys when the fresh price is at or below the limit, with the limit on the intent', () => {
    const strategy = createLimitStrategy(buy0700)
    for (const price of ['418.6', '410']) {
      const intents = strategy.evaluate(snapshot({ nowMs, prices: [marketPrice('hkex', '0700', price)] }))
      expect(intents).toEqual([
        {
          intentId: 'limit:buy-0700',
          chainId: 31337,
          ticker: '0700',
          exchange: 1,
          side: 'buy',
          amountIn: '100',
          amountType: 'stocktoken',
          limitPrice: parsePrice('418.6'),
        },
      ])
    }
  })

  it('does not buy above the limit', () => {
    const strategy = createLimitStrategy(buy0700)
    expect(strategy.evaluate(snapshot({ nowMs, prices: [marketPrice('hkex', '0700', '418.8')] }))).toEqual([])
  })

  it('sells when the price is at or above the limit, not below', () => {
    const strategy = createLimitStrategy({ ...buy0700, id: 'sell-0700', side: 'sell', amountType: undefined })
    const at = (price: string) =>
      strategy.evaluate(snapshot({ nowMs, prices: [marketPrice('hkex', '0700', price)] }))
    expect(at('418.4')).toEqual([])
    expect(at('418.6').map((intent) => intent.intentId)).toEqual(['limit:sell-0700'])
    expect(at('420')).toEqual([
      {
        intentId: 'limit:sell-0700',
        chainId: 31337,
        ticker: '0700',
        exchange: 1,
        side: 'sell',
        amountIn: '100',
        limitPrice: parsePrice('418.6'),
      },
    ])
  })

  it('never acts on a stale, missing or zero price', () => {
    const strategy = createLimitStrategy(buy0700)
    expect(
      strategy.evaluate(snapshot({ nowMs, prices: [marketPrice('hkex', '0700', '400', { stale: true })] })),
    ).toEqual([])
    expect(strategy.evaluate(snapshot({ nowMs }))).toEqual([])
    expect(strategy.evaluate(snapshot({ nowMs, prices: [marketPrice('usex', '0700', '400')] }))).toEqual([])
    expect(strategy.evaluate(snapshot({ nowMs, prices: [marketPrice('hkex', '0700', '0')] }))).toEqual([])
  })

  it('returns the same intent id on every evaluation (the engine trades it once)', () => {
    const strategy = createLimitStrategy(buy0700)
    const ids = ['418.6', '418', '417'].flatMap((price) =>
      strategy
        .evaluate(snapshot({ nowMs, prices: [marketPrice('hkex', '0700', price)] }))
        .map((i) => i.intentId),
    )
    expect(ids).toEqual(['limit:buy-0700', 'limit:buy-0700', 'limit:buy-0700'])
    expect(strategy.intentId).toBe('limit:buy-0700')
  })

  it('follows the stock price for a ShareToken and lists the stock symbol it needs', () => {
    const strategy = createLimitStrategy({
      id: 'aapl-frac',
      chainId: 1,
      ticker: 'AAPLs',
      exchange: 0,
      side: 'buy',
      amountIn: '50',
      limitPrice: '190.25',
    })
    expect(strategy.symbols()).toEqual([{ market: 'usex', symbol: 'AAPL' }])
    expect(strategy.evaluate(snapshot({ nowMs, prices: [marketPrice('usex', 'AAPLs', '100')] }))).toEqual([])
    expect(strategy.evaluate(snapshot({ nowMs, prices: [marketPrice('usex', 'AAPL', '190.25')] }))).toEqual([
      {
        intentId: 'limit:aapl-frac',
        chainId: 1,
        ticker: 'AAPLs',
        exchange: 0,
        side: 'buy',
        amountIn: '50',
        limitPrice: parsePrice('190.25'),
      },
    ])
  })

  it('rejects an HK limit off the tick grid at creation, naming the nearest ticks', () => {
    const error = configError(() => createLimitStrategy({ ...buy0700, limitPrice: '418.7' }))
    expect(error.code).toBe('STRATEGY_CONFIG_INVALID')
    expect(error.issues).toEqual([
      { path: 'limitPrice', message: expect.stringContaining('Use 418.6 or 418.8.') },
    ])
    expect(error.shortMessage).toContain(
      'Strategy "buy-0700" (limit) is invalid: limitPrice: Price 418.7 HKD',
    )
    // Band edges: 9.99 is on the 0.01 grid, 10.01 is not (0.02 from 10 up).
    expect(createLimitStrategy({ ...buy0700, limitPrice: '9.99' }).limitPrice).toBe(parsePrice('9.99'))
    expect(configError(() => createLimitStrategy({ ...buy0700, limitPrice: '10.01' })).message).toContain(
      'Use 10 or 10.02.',
    )
    expect(configError(() => createLimitStrategy({ ...buy0700, limitPrice: '10000' })).issues[0]?.path).toBe(
      'limitPrice',
    )
  })

  it('checks a KR limit against its price band', () => {
    const kr = { ...buy0700, id: 'samsung', ticker: '005930', exchange: 3 } as const
    expect(createLimitStrategy({ ...kr, limitPrice: '56300' }).limitPrice).toBe(parsePrice('56300'))
    expect(configError(() => createLimitStrategy({ ...kr, limitPrice: '56350' })).message).toContain(
      'steps of 100 (krex spread table "KRX"). Use 56300 or 56400.',
    )
    expect(createLimitStrategy({ ...kr, limitPrice: '1999' }).limitPrice).toBe(parsePrice('1999'))
    expect(configError(() => createLimitStrategy({ ...kr, limitPrice: '2001' })).message).toContain(
      'Use 2000 or 2005.',
    )
    expect(configError(() => createLimitStrategy({ ...kr, ticker: '005930s' })).issues[0]).toEqual({
      path: 'ticker',
      message: expect.stringContaining('South Korea stocks trade in whole shares only'),
    })
  })

  it('checks a US limit against the 0.01 tick and refuses an unknown spread table', () => {
    const us = { ...buy0700, ticker: 'AAPL', exchange: 0 } as const
    expect(configError(() => createLimitStrategy({ ...us, limitPrice: '150.005' })).message).toContain(
      'Use 150 or 150.01.',
    )
    expect(
      configError(() => createLimitStrategy({ ...buy0700, spreadTableCode: '9' })).issues.map((i) => i.path),
    ).toEqual(['spreadTableCode'])
  })

  it('refuses a fractional quantity of a StockToken and a stablecoin sell at creation', () => {
    const error = configError(() =>
      createLimitStrategy({ ...buy0700, side: 'sell', amountIn: '1.5', amountType: 'stablecoin' }),
    )
    expect(error.issues.map((issue) => issue.path)).toEqual(['amountType', 'amountIn'])
    expect(error.metaMessages.join('\n')).toContain('trade the ShareToken "0700s" for fractions')
  })

  it('emits intents the engine accepts as SwapIntents', () => {
    const strategy = createLimitStrategy(buy0700)
    const intents: SwapIntent[] = strategy.evaluate(
      snapshot({ nowMs, prices: [marketPrice('hkex', '0700', '418')] }),
    )
    const [intent] = intents
    if (intent === undefined) throw new Error('expected an intent')
    expect(checkIntent(intent, hkInstrument, 6)).toMatchObject({
      amountType: 'stocktoken',
      amountInBaseUnits: 100n,
      limitPrice: parsePrice('418.6'),
    })
  })
})
