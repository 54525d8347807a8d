import { marketCodes } from '@stockroute/client/domain/markets.js'
import { isOnTick } from '@stockroute/client/domain/tickRules.js'
import { parsePrice } from '@stockroute/client/domain/unitStrings.js'
import type { Price } from '@stockroute/client/domain/units.js'
import { sandboxCatalogue } from '@stockroute/sandbox/catalogue.js'
import type { MarketQuoteRecord } from '@stockroute/sandbox/service/contextTypes.js'
import { createPriceSimulator, simulationModel } from '@stockroute/sandbox/service/market/priceSimulator.js'
import { describe, expect, it } from 'vitest'

const second = 1000
const hour = 3_600 * second
const day = 24 * hour
/** Monday 6 January 2025, 00:00 UTC: the start day of most simulators below. */
const startDay = Date.UTC(2025, 0, 6)
const stocks = sandboxCatalogue.map((stock) => ({ stock, market: marketCodes[stock.exchange] }))

function simulator(seed = 'test-seed', createdAt = startDay + 9 * hour) {
  return createPriceSimulator({ catalogue: sandboxCatalogue, seed, clock: { now: () => createdAt } })
}

function quotesAt(sim: ReturnType<typeof simulator>, at: number): MarketQuoteRecord[] {
  return stocks.map(({ stock, market }) => {
    const quote = sim.marketQuote(stock.ticker, market, at)
    if (!quote) throw new Error(`no quote for ${stock.ticker}`)
    return quote
  })
}

/** Sample times over the first days: every hour, plus odd seconds, the last second of each day. */
const sampleTimes = Array.from({ length: 4 }, (_, d) => [
  ...Array.from({ length: 24 }, (_, h) => startDay + d * day + h * hour + ((h * 7919) % 3_600) * second),
  startDay + (d + 1) * day - 1,
]).flat()

describe('determinism', () => {
  it('the same seed and the same times give the same quotes, whatever was asked before', () => {
    const first = simulator()
    const other = simulator('test-seed', startDay + 17 * hour)
    const forward = sampleTimes.map((at) => quotesAt(first, at))
    // The second simulator is asked in reverse order, and for nothing in between.
    const backward = [...sampleTimes].reverse().map((at) => quotesAt(other, at))
    expect(backward.reverse()).toEqual(forward)
  })

  it('a different seed gives different prices', () => {
    const at = startDay + 13 * hour + 17 * second
    const a = quotesAt(simulator('seed-a'), at)
    const b = quotesAt(simulator('seed-b'), at)
    const differing = a.filter((quote, index) => quote.close !== b[index]?.close)
    expect(differing.length).toBeGreaterThan(sandboxCatalogue.length / 2)
  })

  it('uses no Math.random: the same simulator answers the same instant twice alike', () => {
    const sim = simulator()
    const at = startDay + 5 * hour + 123 * second
    expect(quotesAt(sim, at)).toEqual(quotesAt(sim, at))
  })
})

describe('prices', () => {
  it('every open, high, low and close lies on its market tick grid', () => {
    const sim = simulator()
    for (const at of sampleTimes) {
      for (const [index, quote] of quotesAt(sim, at).entries()) {
        const { stock, market } = stocks[index] ?? {}
        if (!stock || !market) throw new Error('catalogue changed under the test')
        for (const field of ['open', 'high', 'low', 'close', 'prev_close'] as const) {
          const price = parsePrice(quote[field])
          expect(
            isOnTick({ market, spreadTableCode: stock.spreadTableCode, price }),
            `${stock.ticker} ${field} ${quote[field]}`,
          ).toBe(true)
        }
      }
    }
  })

  it('low <= open, close <= high, and turnover / volume lies between low and high', () => {
    const sim = simulator()
    for (const at of sampleTimes) {
      for (const quote of quotesAt(sim, at)) {
        const [open, high, low, close] = [quote.open, quote.high, quote.low, quote.close].map(parsePrice)
        const label = `${quote.symbol} at ${new Date(at).toISOString()}`
        expect(low, label).toBeLessThanOrEqual(open as Price)
        expect(low, label).toBeLessThanOrEqual(close as Price)
        expect(high, label).toBeGreaterThanOrEqual(open as Price)
        expect(high, label).toBeGreaterThanOrEqual(close as Price)
        const volume = BigInt(quote.volume)
        const turnover = parsePrice(quote.turnover)
        expect(volume, label).toBeGreaterThan(0n)
        expect(turnover, label).toBeGreaterThanOrEqual(volume * (low as bigint))
        expect(turnover, label).toBeLessThanOrEqual(volume * (high as bigint))
      }
    }
  })

  it('the day high and low bound every price seen so far, second by second', () => {
    const sim = simulator()
    const from = startDay + 10 * hour + 30 * second
    for (const { stock, market } of stocks) {
      let highest = 0n
      let lowest: bigint | undefined
      let previousHigh = 0n
      let previousLow: bigint | undefined
      for (let at = from; at < from + 12 * 60 * second; at += second) {
        const quote = sim.marketQuote(stock.ticker, market, at)
        if (!quote) throw new Error(`no quote for ${stock.ticker}`)
        const close = parsePrice(quote.close)
        const [high, low] = [parsePrice(quote.high), parsePrice(quote.low)]
        highest = close > highest ? close : highest
        lowest = lowest === undefined || close < lowest ? close : lowest
        expect(high, `${stock.ticker} high`).toBeGreaterThanOrEqual(highest)
        expect(low, `${stock.ticker} low`).toBeLessThanOrEqual(lowest)
        expect(high).toBeGreaterThanOrEqual(previousHigh)
        if (previousLow !== undefined) expect(low).toBeLessThanOrEqual(previousLow)
        previousHigh = high
        previousLow = low
      }
    }
  })

  it('moves every second: a US price changes within a minute, every stock within a day', () => {
    const sim = simulator()
    const closes = new Set(
      Array.from({ length: 60 }, (_, s) => sim.lastPrice('AAPL', 0, startDay + 11 * hour + s * second)),
    )
    expect(closes.size).toBeGreaterThan(1)
    for (const quote of quotesAt(sim, startDay + 20 * hour)) {
      expect(parsePrice(quote.high), quote.symbol).toBeGreaterThan(parsePrice(quote.low))
    }
  })

  it('never reaches zero and stays within half to twice the reference price, over a year', () => {
    const sim = simulator()
    for (let d = 0; d < 365; d += 7) {
      for (const [index, quote] of quotesAt(
        sim,
        startDay + d * day + ((d * 3_331) % 86_400) * second,
      ).entries()) {
        const reference = parsePrice(sandboxCatalogue[index]?.referencePrice ?? '0')
        for (const price of [quote.low, quote.high].map(parsePrice)) {
          expect(price).toBeGreaterThan(0n)
          expect(price * simulationModel.corridor).toBeGreaterThanOrEqual(reference)
          expect(price).toBeLessThanOrEqual(reference * simulationModel.corridor)
        }
      }
    }
  })

  it('lastPrice is the current close', () => {
    const sim = simulator()
    for (const at of sampleTimes.slice(0, 30)) {
      for (const { stock, market } of stocks) {
        expect(sim.lastPrice(stock.ticker, stock.exchange, at)).toBe(
          sim.marketQuote(stock.ticker, market, at)?.close,
        )
      }
    }
  })
})

describe('trading days (UTC)', () => {
  it('the start day opens at the reference price, which is its prev_close', () => {
    const sim = simulator()
    for (const [index, quote] of quotesAt(sim, startDay + 15 * hour).entries()) {
      const reference = sandboxCatalogue[index]?.referencePrice ?? ''
      expect(parsePrice(quote.prev_close)).toBe(parsePrice(reference))
      expect(parsePrice(quote.open)).toBe(parsePrice(reference))
    }
    // At the first second of the day, nothing has moved yet.
    for (const quote of quotesAt(sim, startDay)) {
      expect([quote.high, quote.low, quote.close]).toEqual([quote.open, quote.open, quote.open])
    }
  })

  it('prev_close equals the previous day close across a day boundary, and open is the first price', () => {
    const sim = simulator()
    for (let d = 0; d < 6; d++) {
      const boundary = startDay + (d + 1) * day
      const before = quotesAt(sim, boundary - 1)
      const atMidnight = quotesAt(sim, boundary)
      const later = quotesAt(sim, boundary + 14 * hour + 5 * second)
      for (const [index, quote] of before.entries()) {
        expect(atMidnight[index]?.prev_close, quote.symbol).toBe(quote.close)
        expect(atMidnight[index]?.open, quote.symbol).toBe(atMidnight[index]?.close)
        expect(later[index]?.prev_close, quote.symbol).toBe(quote.close)
        expect(later[index]?.open, quote.symbol).toBe(atMidnight[index]?.open)
      }
    }
  })

  it('volume and turnover never decrease within a day and start again the next day', () => {
    const sim = simulator()
    const times = Array.from({ length: 200 }, (_, i) => startDay + day + i * 431 * second)
    for (const { stock, market } of stocks) {
      let volume = 0n
      let turnover = 0n
      for (const at of times) {
        const quote = sim.marketQuote(stock.ticker, market, at)
        if (!quote) throw new Error(`no quote for ${stock.ticker}`)
        expect(BigInt(quote.volume), stock.ticker).toBeGreaterThanOrEqual(volume)
        expect(parsePrice(quote.turnover), stock.ticker).toBeGreaterThanOrEqual(turnover)
        volume = BigInt(quote.volume)
        turnover = parsePrice(quote.turnover)
      }
      const endOfDay = sim.marketQuote(stock.ticker, market, startDay + 2 * day - 1)
      const nextMorning = sim.marketQuote(stock.ticker, market, startDay + 2 * day + 10 * second)
      expect(BigInt(endOfDay?.volume ?? 0)).toBeGreaterThanOrEqual(volume)
      expect(BigInt(nextMorning?.volume ?? 0)).toBeLessThan(BigInt(endOfDay?.volume ?? 0))
    }
  })

  it('HK volumes are whole lots', () => {
    const sim = simulator()
    for (const { stock, market } of stocks.filter(({ market }) => market === 'hkex')) {
      const quote = sim.marketQuote(stock.ticker, market, startDay + 8 * hour + 41 * second)
      expect(BigInt(quote?.volume ?? 1) % BigInt(stock.lotSize)).toBe(0n)
    }
  })

  it('answers a clock that jumps by years, still coherent', () => {
    const sim = simulator()
    const far = startDay + 3 * 365 * day + 22 * hour + 59 * 60 * second + 59 * second
    const quotes = quotesAt(sim, far)
    const again = quotesAt(simulator('test-seed', startDay + 23 * hour), far)
    expect(again).toEqual(quotes)
    for (const [index, quote] of quotes.entries()) {
      const { stock, market } = stocks[index] ?? {}
      if (!stock || !market) throw new Error('catalogue changed under the test')
      const close = parsePrice(quote.close)
      expect(isOnTick({ market, spreadTableCode: stock.spreadTableCode, price: close })).toBe(true)
      expect(close).toBeLessThanOrEqual(parsePrice(quote.high))
      expect(close).toBeGreaterThanOrEqual(parsePrice(quote.low))
      expect(sim.lastPrice(stock.ticker, stock.exchange, far)).toBe(quote.close)
    }
  })

  it('answers times before the start day as its first second', () => {
    const sim = simulator()
    expect(quotesAt(sim, startDay - 5 * day)).toEqual(quotesAt(sim, startDay))
  })
})

describe('unknown stocks', () => {
  it('marketQuote is undefined for an unknown symbol or another market; lastPrice throws', () => {
    const sim = simulator()
    expect(sim.marketQuote('ZZZZ', 'usex', startDay)).toBeUndefined()
    expect(sim.marketQuote('0700', 'usex', startDay)).toBeUndefined()
    expect(sim.marketQuote('AAPLs', 'usex', startDay)).toBeUndefined()
    expect(sim.marketQuote('0700', 'hkex', startDay)?.name).toBe('Tencent Holdings Ltd.')
    expect(() => sim.lastPrice('ZZZZ', 0, startDay)).toThrow(/ZZZZ/)
  })
})
