import { defaultFxRates } from '@stockroute/client/domain/quotePrice.js'
import { parseUnits } from 'viem'
import { describe, expect, it } from 'vitest'
import {
  createRebalanceStrategy,
  type RebalanceStrategyConfig,
  StrategyConfigError,
} from '../../src/strategy/index.js'
import { chainId, position } from './rebalanceFixtures.js'
import { cashOf, marketPrice, snapshot } from './snapshot.js'

// Rebalancing values a chain's cash and target holdings at fresh prices in the chain's asset and
// trades a target that drifted beyond the threshold back toward its weight: whole lots, never
// selling more than held, never buying more than the cash pays for, once per window.

const nowMs = Date.parse('2026-01-05T14:20:00Z')
const window = '2026-01-05T14:00:00.000Z'
const usdc = (natural: string) => parseUnits(natural, 6)

const aaplHalf = {
  id: 'core',
  chainId,
  driftThreshold: '0.05',
  targets: [{ ticker: 'AAPL', exchange: 0, weight: '0.5' }],
} as const satisfies Omit<RebalanceStrategyConfig, 'kind'>

describe('createRebalanceStrategy', () => {
  it('does nothing while the drift is within the threshold (the threshold itself included)', () => {
    const strategy = createRebalanceStrategy(aaplHalf)
    const evaluate = (shares: bigint, cash: string, price: string) =>
      strategy.evaluate(
        snapshot({
          nowMs,
          prices: [marketPrice('usex', 'AAPL', price)],
          positions: [position('AAPL', 0, shares)],
          cash: [cashOf(chainId, 6, usdc(cash))],
        }),
      )
    expect(evaluate(37n, '7600', '200')).toEqual([]) // weight 0.4933
    expect(evaluate(45n, '5500', '100')).toEqual([]) // weight 0.45: drift exactly 0.05
    expect(evaluate(44n, '5600', '100').map((intent) => intent.amountIn)).toEqual(['6']) // drift 0.06
  })

  it('buys whole shares toward the target weight when the drift exceeds the threshold', () => {
    const strategy = createRebalanceStrategy(aaplHalf)
    const intents = strategy.evaluate(
      snapshot({
        nowMs,
        prices: [marketPrice('usex', 'AAPL', '200')],
        positions: [position('AAPL', 0, 25n)],
        cash: [cashOf(chainId, 6, usdc('10000'))],
      }),
    )
    // 15,000 in all, 5,000 in AAPL, target 7,500: 2,500 / 200 = 12.5, rounded down to 12.
    expect(intents).toEqual([
      {
        intentId: `rebalance:core:${chainId}:AAPL:${window}`,
        chainId,
        ticker: 'AAPL',
        exchange: 0,
        side: 'buy',
        amountIn: '12',
        amountType: 'stocktoken',
      },
    ])
    expect(strategy.symbols()).toEqual([{ market: 'usex', symbol: 'AAPL' }])
  })

  it('buys HK shares in whole lots of 100, the same with a 6- and an 18-decimal asset', () => {
    const strategy = createRebalanceStrategy({
      id: 'hk',
      chainId,
      driftThreshold: '0.05',
      targets: [{ ticker: '0700', exchange: 1, weight: '0.5', lotSize: 100 }],
    })
    // 400 HKD x 0.1285 = 51.4 per share; 50,000 / 51.4 = 972.7 shares: 9 lots.
    for (const decimals of [6, 18]) {
      const intents = strategy.evaluate(
        snapshot({
          nowMs,
          prices: [marketPrice('hkex', '0700', '400')],
          cash: [cashOf(chainId, decimals, parseUnits('100000', decimals))],
        }),
      )
      expect(intents.map(({ side, amountIn, intentId }) => ({ side, amountIn, intentId }))).toEqual([
        { side: 'buy', amountIn: '900', intentId: `rebalance:hk:${chainId}:0700:${window}` },
      ])
    }
  })

  it('takes the lot size from the position view before the configuration', () => {
    const strategy = createRebalanceStrategy({
      id: 'hk',
      chainId,
      driftThreshold: '0.05',
      targets: [{ ticker: '0700', exchange: 1, weight: '0.5', lotSize: 100 }],
    })
    const intents = strategy.evaluate(
      snapshot({
        nowMs,
        prices: [marketPrice('hkex', '0700', '400')],
        positions: [position('0700', 1, 0n, { lotSize: 500n })],
        cash: [cashOf(chainId, 6, usdc('100000'))],
      }),
    )
    expect(intents.map((intent) => intent.amountIn)).toEqual(['500'])
  })

  it('sells in whole lots and never more than held', () => {
    const strategy = createRebalanceStrategy({
      id: 'exit',
      chainId,
      driftThreshold: '0.01',
      targets: [
        { ticker: '0700', exchange: 1, weight: '0', lotSize: 100 },
        { ticker: 'AAPL', exchange: 0, weight: '0' },
      ],
    })
    const intents = strategy.evaluate(
      snapshot({
        nowMs,
        prices: [marketPrice('hkex', '0700', '400'), marketPrice('usex', 'AAPL', '200')],
        positions: [position('0700', 1, 250n, { lotSize: 100n }), position('AAPL', 0, 30n)],
        cash: [cashOf(chainId, 18, parseUnits('1000', 18))],
      }),
    )
    // 250 held in lots of 100: 200 can be sold (the odd lot stays); all 30 AAPL.
    expect(intents.map(({ ticker, side, amountIn }) => ({ ticker, side, amountIn }))).toEqual([
      { ticker: '0700', side: 'sell', amountIn: '200' },
      { ticker: 'AAPL', side: 'sell', amountIn: '30' },
    ])
  })

  it('trades ShareTokens in 18-decimal fractions, rounded down, valuing balance / 1e18 shares', () => {
    const strategy = createRebalanceStrategy({
      id: 'frac',
      chainId,
      driftThreshold: '0.05',
      targets: [{ ticker: 'AAPLs', exchange: 0, weight: '0.5' }],
    })
    const evaluate = (balance: bigint, cash: string) =>
      strategy.evaluate(
        snapshot({
          nowMs,
          prices: [marketPrice('usex', 'AAPL', '300')],
          positions: balance === 0n ? [] : [position('AAPLs', 0, balance, { tokenKind: 'share' })],
          cash: [cashOf(chainId, 6, usdc(cash))],
        }),
      )
    expect(evaluate(0n, '1000').map(({ side, amountIn }) => ({ side, amountIn }))).toEqual([
      { side: 'buy', amountIn: '1.666666666666666666' },
    ])
    // 2.5 shares = 750 of 1,000: sell 250 / 300 of a share.
    expect(evaluate(parseUnits('2.5', 18), '250').map(({ side, amountIn }) => ({ side, amountIn }))).toEqual([
      { side: 'sell', amountIn: '0.833333333333333333' },
    ])
  })

  it('converts KR prices with the FX rate and trades whole shares', () => {
    const strategy = createRebalanceStrategy({
      id: 'kr',
      chainId,
      driftThreshold: '0.05',
      targets: [{ ticker: '005930', exchange: 3, weight: '0.4' }],
    })
    // 56,300 KRW x 0.00072 = 40.536 per share; 4,000 / 40.536 = 98.7.
    const intents = strategy.evaluate(
      snapshot({
        nowMs,
        prices: [marketPrice('krex', '005930', '56300')],
        cash: [cashOf(chainId, 6, usdc('10000'))],
      }),
    )
    expect(intents.map((intent) => intent.amountIn)).toEqual(['98'])
    const dearerWon = createRebalanceStrategy({
      id: 'kr',
      chainId,
      driftThreshold: '0.05',
      targets: [{ ticker: '005930', exchange: 3, weight: '0.4' }],
      fxRates: { krex: '0.00144' },
    })
    expect(dearerWon.fxRates.usex).toBe(defaultFxRates.usex)
    expect(
      dearerWon
        .evaluate(
          snapshot({
            nowMs,
            prices: [marketPrice('krex', '005930', '56300')],
            cash: [cashOf(chainId, 6, usdc('10000'))],
          }),
        )
        .map((intent) => intent.amountIn),
    ).toEqual(['49'])
  })

  it('sells before it buys, and buys no more than the cash pays for', () => {
    const strategy = createRebalanceStrategy({
      id: 'mix',
      chainId,
      driftThreshold: '0.05',
      targets: [
        { ticker: 'MSFT', exchange: 0, weight: '0.8' },
        { ticker: 'AAPL', exchange: 0, weight: '0.2' },
      ],
    })
    const evaluate = (cash: string) =>
      strategy
        .evaluate(
          snapshot({
            nowMs,
            prices: [marketPrice('usex', 'AAPL', '100'), marketPrice('usex', 'MSFT', '400')],
            positions: [position('AAPL', 0, 100n)],
            cash: [cashOf(chainId, 6, usdc(cash))],
          }),
        )
        .map(({ ticker, side, amountIn }) => `${side} ${amountIn} ${ticker}`)
    expect(evaluate('0')).toEqual(['sell 80 AAPL'])
    expect(evaluate('2000')).toEqual(['sell 76 AAPL', 'buy 5 MSFT'])
  })

  it('trades nothing without a fresh price for every target or without the chain’s cash', () => {
    const strategy = createRebalanceStrategy({
      id: 'two',
      chainId,
      driftThreshold: '0.05',
      targets: [
        { ticker: 'AAPL', exchange: 0, weight: '0.5' },
        { ticker: 'MSFT', exchange: 0, weight: '0.5' },
      ],
    })
    const aapl = marketPrice('usex', 'AAPL', '200')
    const cash = [cashOf(chainId, 6, usdc('10000'))]
    const fresh = [aapl, marketPrice('usex', 'MSFT', '400')]
    expect(strategy.evaluate(snapshot({ nowMs, prices: fresh, cash }))).toHaveLength(2)
    expect(strategy.evaluate(snapshot({ nowMs, prices: [aapl], cash }))).toEqual([])
    expect(
      strategy.evaluate(
        snapshot({ nowMs, prices: [aapl, marketPrice('usex', 'MSFT', '400', { stale: true })], cash }),
      ),
    ).toEqual([])
    expect(strategy.evaluate(snapshot({ nowMs, prices: fresh }))).toEqual([])
    expect(
      strategy.evaluate(snapshot({ nowMs, prices: fresh, cash: [cashOf(1, 6, usdc('10000'))] })),
    ).toEqual([])
    expect(strategy.evaluate(snapshot({ nowMs, prices: fresh, cash: [cashOf(chainId, 6, 0n)] }))).toEqual([])
  })

  it('gives the same ids within a window and new ones in the next', () => {
    const strategy = createRebalanceStrategy(aaplHalf)
    const idsAt = (atMs: number, shares: bigint) =>
      strategy
        .evaluate(
          snapshot({
            nowMs: atMs,
            prices: [marketPrice('usex', 'AAPL', '200')],
            positions: [position('AAPL', 0, shares)],
            cash: [cashOf(chainId, 6, usdc('10000'))],
          }),
        )
        .map((intent) => intent.intentId)
    const inWindow = `rebalance:core:${chainId}:AAPL:${window}`
    expect(idsAt(nowMs, 25n)).toEqual([inWindow])
    expect(idsAt(Date.parse('2026-01-05T14:59:59.999Z'), 10n)).toEqual([inWindow])
    expect(idsAt(Date.parse('2026-01-05T15:00:00Z'), 25n)).toEqual([
      `rebalance:core:${chainId}:AAPL:2026-01-05T15:00:00.000Z`,
    ])
    const quarterHours = createRebalanceStrategy({ ...aaplHalf, windowMs: 900_000 })
    expect(
      quarterHours
        .evaluate(
          snapshot({
            nowMs,
            prices: [marketPrice('usex', 'AAPL', '200')],
            cash: [cashOf(chainId, 6, usdc('10000'))],
          }),
        )
        .map((intent) => intent.intentId),
    ).toEqual([`rebalance:core:${chainId}:AAPL:2026-01-05T14:15:00.000Z`])
  })

  it('refuses weights above 1 in sum, a KR ShareToken and an HK StockToken without lotSize', () => {
    let caught: unknown
    try {
      createRebalanceStrategy({
        id: 'bad',
        chainId,
        driftThreshold: '0.05',
        targets: [
          { ticker: 'AAPL', exchange: 0, weight: '0.7' },
          { ticker: '0700', exchange: 1, weight: '0.2' },
          { ticker: '005930s', exchange: 3, weight: '0.2' },
        ],
      })
    } catch (error) {
      caught = error
    }
    expect(caught).toBeInstanceOf(StrategyConfigError)
    const error = caught as StrategyConfigError
    expect(error.issues.map((issue) => issue.path)).toEqual([
      'targets.1.lotSize',
      'targets.2.ticker',
      'targets',
    ])
    expect(error.message).toContain('targets: weights sum to 1.1, more than 1: lower them')
    expect(error.message).toContain('targets.1.lotSize: is required for the HK StockToken 0700')
  })
})
