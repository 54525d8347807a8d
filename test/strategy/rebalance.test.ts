import fc from 'fast-check'
import { parseUnits } from 'viem'
import { describe, expect, it } from 'vitest'
import type { ExchangeCode, MarketCode, TokenKind } from '../../src/domain/markets.js'
import { defaultFxRates, marketPriceInAsset } from '../../src/domain/quotePrice.js'
import { formatPrice } from '../../src/domain/unitStrings.js'
import { toPrice } from '../../src/domain/units.js'
import { checkIntent } from '../../src/engine/intent.js'
import type { Instrument } from '../../src/engine/resolveInstrument.js'
import {
  createRebalanceStrategy,
  type PositionView,
  type RebalanceStrategyConfig,
  StrategyConfigError,
} from '../../src/strategy/index.js'
import { cashOf, marketPrice, snapshot } from './snapshot.js'

// Rebalancing values a chain's cash and target holdings at fresh prices in the chain's asset and
// trades a target that drifted beyond the threshold back toward its weight: whole lots, never
// selling more than held, never buying more than the cash pays for, once per window.

const chainId = 31337
const nowMs = Date.parse('2026-01-05T14:20:00Z')
const window = '2026-01-05T14:00:00.000Z'
const usdc = (natural: string) => parseUnits(natural, 6)

const position = (
  ticker: string,
  exchange: ExchangeCode,
  balance: bigint,
  options: { tokenKind?: TokenKind; lotSize?: bigint; chainId?: number } = {},
): PositionView => ({
  chainId: options.chainId ?? chainId,
  ticker,
  exchange,
  tokenKind: options.tokenKind ?? 'stock',
  balance,
  lotSize: options.lotSize ?? 1n,
})

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

  it('never sells more than held, trades whole lots and stays within the cash (property)', () => {
    const pool = [
      { ticker: 'AAPL', exchange: 0, market: 'usex', symbol: 'AAPL', tokenKind: 'stock' },
      { ticker: 'AAPLs', exchange: 0, market: 'usex', symbol: 'AAPL', tokenKind: 'share' },
      { ticker: '0700', exchange: 1, market: 'hkex', symbol: '0700', tokenKind: 'stock' },
      { ticker: '005930', exchange: 3, market: 'krex', symbol: '005930', tokenKind: 'stock' },
    ] as const satisfies readonly {
      ticker: string
      exchange: ExchangeCode
      market: MarketCode
      symbol: string
      tokenKind: TokenKind
    }[]
    const holdingArbitrary = fc.record({
      price: fc.bigInt({ min: 1n, max: 10n ** 14n }), // up to 1,000,000 in 1e8 units
      balance: fc.oneof(fc.constant(0n), fc.bigInt({ min: 1n, max: 10n ** 6n })),
      shareBalance: fc.oneof(fc.constant(0n), fc.bigInt({ min: 1n, max: 10n ** 24n })),
      lotSize: fc.constantFrom(100n, 200n, 500n, 1000n),
      weightBps: fc.integer({ min: 0, max: 10_000 }),
    })
    fc.assert(
      fc.property(
        fc.subarray([0, 1, 2, 3], { minLength: 1 }),
        fc.array(holdingArbitrary, { minLength: 4, maxLength: 4 }),
        fc.constantFrom(6, 18),
        fc.bigInt({ min: 0n, max: 10n ** 12n }),
        fc.constantFrom('0.001', '0.01', '0.05', '0.2'),
        fc.integer({ min: 0, max: 4_000_000_000_000 }),
        (chosen, holdings, decimals, cashNatural, driftThreshold, atMs) => {
          const bpsSum = chosen.reduce((sum, index) => sum + (holdings[index]?.weightBps ?? 0), 0)
          const scale = Math.max(bpsSum, 10_000)
          const targets = chosen.map((index) => {
            const entry = pool[index]
            const holding = holdings[index]
            if (entry === undefined || holding === undefined) throw new Error('unreachable')
            // Weights in basis points of `scale`, rounded down, so they sum to at most 1.
            const bps = Math.floor((holding.weightBps * 10_000) / scale)
            const weight = bps === 10_000 ? '1' : `0.${String(bps).padStart(4, '0')}`
            return {
              entry,
              holding,
              config: {
                ticker: entry.ticker,
                exchange: entry.exchange,
                weight,
                ...(entry.market === 'hkex' ? { lotSize: Number(holding.lotSize) } : {}),
              },
            }
          })
          const strategy = createRebalanceStrategy({
            id: 'prop',
            chainId,
            driftThreshold,
            targets: targets.map((target) => target.config),
          })
          // AAPL and AAPLs share one market price: the first chosen target's.
          const priceOf = (symbol: string) =>
            toPrice(targets.find((target) => target.entry.symbol === symbol)?.holding.price ?? 1n)
          const cashBalance = (cashNatural * 10n ** BigInt(decimals)) / 100n
          const input = snapshot({
            nowMs: atMs,
            prices: targets.map(({ entry }) =>
              marketPrice(entry.market, entry.symbol, formatPrice(priceOf(entry.symbol))),
            ),
            positions: targets.map(({ entry, holding }) =>
              position(
                entry.ticker,
                entry.exchange,
                entry.tokenKind === 'share' ? holding.shareBalance : holding.balance,
                {
                  tokenKind: entry.tokenKind,
                  lotSize: entry.market === 'hkex' ? holding.lotSize : 1n,
                },
              ),
            ),
            cash: [cashOf(chainId, decimals, cashBalance)],
          })
          const intents = strategy.evaluate(input)
          expect(strategy.evaluate(input)).toEqual(intents)
          expect(new Set(intents.map((intent) => intent.intentId)).size).toBe(intents.length)
          let spent = 0n
          for (const intent of intents) {
            const target = targets.find((candidate) => candidate.entry.ticker === intent.ticker)
            if (target === undefined) throw new Error(`intent for an unknown ticker ${intent.ticker}`)
            const { entry, holding } = target
            const isShare = entry.tokenKind === 'share'
            const quantity = isShare ? parseUnits(intent.amountIn, 18) : BigInt(intent.amountIn)
            const lot = entry.market === 'hkex' ? holding.lotSize : 1n
            expect(quantity).toBeGreaterThan(0n)
            if (!isShare) expect(quantity % lot).toBe(0n)
            expect(intent.amountType).toBe('stocktoken')
            expect(intent.intentId).toBe(
              `rebalance:prop:${chainId}:${entry.ticker}:${new Date(Math.floor(atMs / 3_600_000) * 3_600_000).toISOString()}`,
            )
            const pricePerShare = marketPriceInAsset({
              price: priceOf(entry.symbol),
              fxRate: defaultFxRates[entry.market],
              assetDecimals: decimals,
              direction: 'up',
            })
            if (intent.side === 'sell')
              expect(quantity).toBeLessThanOrEqual(isShare ? holding.shareBalance : holding.balance)
            else
              spent += isShare
                ? (quantity * pricePerShare + 10n ** 18n - 1n) / 10n ** 18n
                : quantity * pricePerShare
            // Every intent passes the engine's own checks (lots, whole KR shares, decimals).
            const instrument: Instrument = {
              chainId,
              ticker: entry.ticker,
              exchange: entry.exchange,
              market: entry.market,
              tokenAddress: '0x1000000000000000000000000000000000000001',
              tokenKind: entry.tokenKind,
              lotSize: lot,
              spreadTableCode: entry.market === 'krex' ? 'KRX' : '1',
              marketSymbol: entry.symbol,
            }
            expect(checkIntent(intent, instrument, decimals).amountInBaseUnits).toBe(quantity)
          }
          expect(spent).toBeLessThanOrEqual(cashBalance)
          const sides = intents.map((intent) => intent.side)
          expect(sides).toEqual([...sides].sort((a, b) => (a === b ? 0 : a === 'sell' ? -1 : 1)))
        },
      ),
      { numRuns: 300 },
    )
  })
})
