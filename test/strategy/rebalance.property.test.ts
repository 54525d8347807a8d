import type { ExchangeCode, MarketCode, TokenKind } from '@stockroute/client/domain/markets.js'
import { defaultFxRates, marketPriceInAsset } from '@stockroute/client/domain/quotePrice.js'
import { formatPrice } from '@stockroute/client/domain/unitStrings.js'
import { toPrice } from '@stockroute/client/domain/units.js'
import fc from 'fast-check'
import { parseUnits } from 'viem'
import { describe, expect, it } from 'vitest'
import type { Instrument } from '../../src/engine/index.js'
import { checkIntent } from '../../src/engine/index.js'
import { createRebalanceStrategy } from '../../src/strategy/index.js'
import { chainId, position } from './rebalanceFixtures.js'
import { cashOf, marketPrice, snapshot } from './snapshot.js'

describe('createRebalanceStrategy', () => {
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
