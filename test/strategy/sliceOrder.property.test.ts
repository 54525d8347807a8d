import { marketDefaults } from '@stockroute/client/domain/marketRules.js'
import type { ExchangeCode, MarketCode } from '@stockroute/client/domain/markets.js'
import { assertOrderQuantity } from '@stockroute/client/domain/quantityRules.js'
import { isOnTick, roundToTick } from '@stockroute/client/domain/tickRules.js'
import { formatPrice, parseShareQuantity } from '@stockroute/client/domain/unitStrings.js'
import { type ShareQuantity, toPrice, toShareQuantity } from '@stockroute/client/domain/units.js'
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { checkIntent, type Instrument } from '../../src/engine/index.js'
import { createTwapStrategy, type ListingView, sliceOrder, sliceTimes } from '../../src/strategy/index.js'
import { snapshot } from './snapshot.js'

// The slicing of a TWAP, by property: no slice breaks a lot or tick rule, the slices and the
// remainder sum exactly to the order, and the slice times are strictly increasing inside the window.

const share = 10n ** 18n

describe('sliceOrder', () => {
  it('cuts an order into whole lots that sum, with the remainder, exactly to it (property)', () => {
    fc.assert(
      fc.property(
        fc.bigInt({ min: 0n, max: 10n ** 9n }),
        fc.bigInt({ min: 0n, max: share - 1n }),
        fc.integer({ min: 1, max: 300 }),
        fc.oneof(
          fc.constantFrom(1n, 100n, 200n, 400n, 500n, 1000n, 2000n),
          fc.bigInt({ min: 1n, max: 5000n }),
        ),
        (wholeShares, fraction, slices, lotSize) => {
          const quantity = toShareQuantity(wholeShares * share + fraction)
          const sliced = sliceOrder({ quantity, slices, lotSize })
          const lots = wholeShares / lotSize
          // Every slice is a positive whole number of lots: the HK lot rule (and whole shares) holds.
          // (Checked in plain code and asserted once a run: an expect() per slice is most of the time.)
          const offLot = sliced.slices.filter(
            (slice) =>
              slice.shares <= 0n ||
              slice.shares % lotSize !== 0n ||
              throwsOn(() =>
                assertOrderQuantity({ market: 'hkex', lotSize, token: 'stock', quantity: slice.shares }),
              ),
          )
          expect(offLot).toEqual([])
          // Indices ascend within 1..slices; a slice with no lot is left out, never zero-sized.
          const indices = sliced.slices.map((slice) => slice.index)
          expect(indices).toEqual([...new Set(indices)].sort((a, b) => a - b))
          expect(indices.every((index) => index >= 1 && index <= slices)).toBe(true)
          expect(sliced.slices.length).toBe(Number(lots < BigInt(slices) ? lots : BigInt(slices)))
          // Sizes differ by at most one lot.
          const sizes = sliced.slices.map((slice) => slice.shares)
          const sorted = [...sizes].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
          expect((sorted.at(-1) ?? 0n) - (sorted[0] ?? 0n)).toBeLessThanOrEqual(lotSize)
          // Slices plus remainder are exactly the order; the remainder is less than one lot.
          const total = sizes.reduce((sum, size) => sum + size, 0n)
          expect(total * share + sliced.remainder).toBe(quantity)
          expect(sliced.remainder).toBeGreaterThanOrEqual(0n)
          expect(sliced.remainder).toBeLessThan(lotSize * share)
          expect(sliced.remainder).toBe((wholeShares % lotSize) * share + fraction)
          // A remainder is a valid ShareToken quantity where ShareTokens trade.
          if (sliced.remainder > 0n)
            expect(() =>
              assertOrderQuantity({ market: 'usex', token: 'share', quantity: sliced.remainder }),
            ).not.toThrow()
        },
      ),
      { numRuns: 500 },
    )
  })

  it('refuses a negative quantity, a lot below 1 and a slice count below 1', () => {
    expect(() => sliceOrder({ quantity: -1n as ShareQuantity, slices: 1, lotSize: 1n })).toThrow(RangeError)
    expect(() => sliceOrder({ quantity: toShareQuantity(share), slices: 1, lotSize: 0n })).toThrow(RangeError)
    expect(() => sliceOrder({ quantity: toShareQuantity(share), slices: 0, lotSize: 1n })).toThrow(RangeError)
    expect(() => sliceOrder({ quantity: toShareQuantity(share), slices: 1.5, lotSize: 1n })).toThrow(
      RangeError,
    )
  })
})

describe('sliceTimes', () => {
  it('gives strictly increasing times inside the window, the same on every call (property)', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 64 }),
        fc.integer({ min: 0, max: 4_000_000_000_000 }),
        fc.integer({ min: 1, max: 400 }),
        fc.integer({ min: 1, max: 7 * 24 * 60 }),
        fc.integer({ min: 0, max: 50 }),
        (strategyId, startMs, slices, minutes, jitterPct) => {
          const windowMs = minutes * 60_000
          const parameters = { strategyId, startMs, durationMs: windowMs, slices, jitterPct }
          const times = sliceTimes(parameters)
          expect(times).toHaveLength(slices)
          expect(sliceTimes(parameters)).toEqual(times)
          // The rules in plain code, the times that break one asserted once a run.
          const misplaced = times.flatMap((atMs, position) => {
            const before = times[position - 1]
            // A slice moves later by at most jitterPct of its part of the window.
            const from = startMs + Math.floor((position * windowMs) / slices)
            const to = startMs + Math.floor(((position + 1) * windowMs) / slices)
            const broken = [
              !Number.isSafeInteger(atMs) && 'not a safe integer',
              atMs < startMs && 'before the window',
              atMs >= startMs + windowMs && 'after the window',
              before !== undefined && atMs <= before && 'not after the one before',
              atMs > from + ((to - from) * jitterPct) / 100 && 'moved later than its jitter allows',
            ].filter(Boolean)
            return broken.length === 0 ? [] : [{ position, atMs, broken }]
          })
          expect(misplaced).toEqual([])
          if (jitterPct === 0)
            expect(times).toEqual(
              times.map((_, position) => startMs + Math.floor((position * windowMs) / slices)),
            )
        },
      ),
      { numRuns: 300 },
    )
  })

  it('refuses a window shorter than a millisecond per slice and a jitter above 50%', () => {
    const base = { strategyId: 't', startMs: 0, durationMs: 60_000, slices: 10, jitterPct: 20 }
    expect(() => sliceTimes({ ...base, durationMs: 9, slices: 10 })).toThrow(RangeError)
    expect(() => sliceTimes({ ...base, jitterPct: 51 })).toThrow(RangeError)
    expect(() => sliceTimes({ ...base, jitterPct: -1 })).toThrow(RangeError)
  })
})

describe('createTwapStrategy', () => {
  // Limit prices (1e8-scaled) inside each market's price bands.
  const pool = [
    { ticker: 'AAPL', exchange: 0, market: 'usex', lots: [1n], prices: [10n ** 6n, 10n ** 12n] },
    {
      ticker: '0700',
      exchange: 1,
      market: 'hkex',
      lots: [100n, 200n, 400n, 500n, 1000n],
      prices: [10n ** 6n, 999_000_000_000n],
    },
    { ticker: '005930', exchange: 3, market: 'krex', lots: [1n], prices: [10n ** 8n, 10n ** 14n] },
  ] as const satisfies readonly {
    ticker: string
    exchange: ExchangeCode
    market: MarketCode
    lots: readonly bigint[]
    prices: readonly [bigint, bigint]
  }[]

  it("trades, by the end of the window, slices that pass the engine's lot and tick checks and sum to the order (property)", () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...pool),
        fc.nat({ max: 4 }),
        fc.bigInt({ min: 1n, max: 50_000n }),
        fc.bigInt({ min: 0n, max: share - 1n }),
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 1, max: 600 }),
        fc.integer({ min: 0, max: 50 }),
        fc.option(fc.double({ min: 0, max: 1, noNaN: true }), { nil: undefined }),
        fc.constantFrom('buy', 'sell'),
        fc.boolean(),
        (
          entry,
          lotPick,
          wholeLots,
          rawFraction,
          slicesWanted,
          minutes,
          jitterPct,
          rawLimit,
          side,
          listsShareToken,
        ) => {
          const lotSize = entry.lots[lotPick % entry.lots.length] ?? 1n
          const fraction = entry.market === 'krex' ? 0n : rawFraction
          const odd = entry.market === 'hkex' ? wholeLots % lotSize : 0n
          const quantityUnits = (wholeLots * lotSize + odd) * share + fraction
          const lots = quantityUnits / share / lotSize
          const slices = Number(BigInt(slicesWanted) > lots ? lots : BigInt(slicesWanted))
          const spreadTableCode = marketDefaults[entry.market].spreadTableCode
          // A limit put on the grid the way an operator would (the schema refuses one off it).
          const limitPrice =
            rawLimit === undefined
              ? undefined
              : roundToTick({
                  market: entry.market,
                  spreadTableCode,
                  price: toPrice(pricedIn(entry.prices, rawLimit)),
                  direction: 'down',
                })
          const startMs = Date.parse('2026-03-02T01:30:00Z')
          const strategy = createTwapStrategy({
            id: 'prop-twap',
            chainId: 31337,
            ticker: entry.ticker,
            exchange: entry.exchange,
            side,
            quantity: formatUnits18(quantityUnits),
            startAt: new Date(startMs).toISOString(),
            durationMinutes: minutes,
            slices,
            jitterPct,
            ...(entry.market === 'hkex' ? { lotSize: Number(lotSize) } : {}),
            ...(limitPrice === undefined ? {} : { limitPrice: formatPrice(limitPrice) }),
          })
          const listings: ListingView[] = [
            { chainId: 31337, ticker: entry.ticker, exchange: entry.exchange, tokenKind: 'stock', lotSize },
            ...(listsShareToken && entry.market !== 'krex'
              ? [
                  {
                    chainId: 31337,
                    ticker: `${entry.ticker}s`,
                    exchange: entry.exchange,
                    tokenKind: 'share' as const,
                    lotSize,
                  },
                ]
              : []),
          ]
          const endMs = startMs + minutes * 60_000
          const before = strategy.evaluate({ ...snapshot({ nowMs: startMs - 1 }), listings })
          expect(before).toEqual([])
          const intents = strategy.evaluate({ ...snapshot({ nowMs: endMs }), listings })
          let stockTotal = 0n
          let shareTotal = 0n
          for (const intent of intents) {
            const isShare = intent.ticker.endsWith('s')
            const instrument: Instrument = {
              chainId: 31337,
              ticker: intent.ticker,
              exchange: entry.exchange,
              market: entry.market,
              tokenAddress: '0x1000000000000000000000000000000000000001',
              tokenKind: isShare ? 'share' : 'stock',
              lotSize,
              spreadTableCode,
              marketSymbol: entry.ticker,
            }
            // The engine's own checks: whole lots, whole KR shares, 18 decimals, the tick grid.
            const checked = checkIntent(intent, instrument, 6)
            expect(intent.amountType).toBe('stocktoken')
            expect(intent.side).toBe(side)
            if (intent.limitPrice !== undefined)
              expect(isOnTick({ market: entry.market, spreadTableCode, price: intent.limitPrice })).toBe(true)
            if (isShare) shareTotal += checked.amountInBaseUnits
            else stockTotal += checked.amountInBaseUnits
          }
          expect(intents.filter((intent) => !intent.ticker.endsWith('s'))).toHaveLength(
            strategy.slices.length,
          )
          const remainder = quantityUnits - stockTotal * share
          expect(strategy.remainder?.quantity ?? 0n).toBe(remainder)
          // The remainder is traded as the ShareToken exactly when the chain lists it.
          expect(shareTotal).toBe(listsShareToken && entry.market !== 'krex' ? remainder : 0n)
          expect(stockTotal * share + shareTotal + (shareTotal === 0n ? remainder : 0n)).toBe(quantityUnits)
          expect(new Set(intents.map((intent) => intent.intentId)).size).toBe(intents.length)
          // Each slice is due at its time and not before.
          for (const slice of strategy.slices) {
            const ids = (nowMs: number) =>
              strategy.evaluate({ ...snapshot({ nowMs }), listings }).map((intent) => intent.intentId)
            expect(ids(slice.atMs)).toContain(slice.intentId)
            expect(ids(slice.atMs - 1)).not.toContain(slice.intentId)
          }
        },
      ),
      { numRuns: 150 },
    )
  })
})

/** Whether `run` throws. */
function throwsOn(run: () => void): boolean {
  try {
    run()
    return false
  } catch {
    return true
  }
}

/** 1e18-scaled units as a decimal string of shares. */
function formatUnits18(units: bigint): string {
  const whole = units / share
  const fraction = (units % share).toString().padStart(18, '0').replace(/0+$/, '')
  const text = fraction === '' ? whole.toString() : `${whole}.${fraction}`
  expect(parseShareQuantity(text)).toBe(units)
  return text
}

/** A price between the band's ends, at `position` (0 to 1) of the way, in 1e8 units. */
function pricedIn([low, high]: readonly [bigint, bigint], position: number): bigint {
  return low + ((high - low) * BigInt(Math.floor(position * 1_000_000))) / 1_000_000n
}
