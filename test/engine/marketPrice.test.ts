import { createServiceClient } from '@stockroute/client/api/createServiceClient.js'
import { describe, expect, it } from 'vitest'
import type { MarketPriceSource } from '../../src/engine/context.js'
import { cachedMarketPrice, serviceMarketPrice } from '../../src/engine/marketPrice.js'
import type { Instrument } from '../../src/engine/types.js'
import { useSandboxService } from '../helpers/sandboxService.js'

// The engine's own market-price cache (the library's default; the daemon passes its price cache):
// the deviation guard costs one request per instrument and max age, not one per execution.

const service = useSandboxService()

const aapl: Instrument = {
  chainId: 31337,
  ticker: 'AAPL',
  exchange: 0,
  market: 'usex',
  tokenAddress: '0x0000000000000000000000000000000000000001',
  tokenKind: 'stock',
  lotSize: 1n,
  spreadTableCode: 'US',
  marketSymbol: 'AAPL',
}

/** The service's market price, counting the requests it makes. */
function countedServicePrice() {
  const sandbox = service()
  const source = serviceMarketPrice(
    createServiceClient({ baseUrl: sandbox.url, credentials: sandbox.credential }),
  )
  const counted = { requests: 0, last: Promise.resolve(0n) as ReturnType<MarketPriceSource> }
  const price: MarketPriceSource = (instrument, options) => {
    counted.requests += 1
    counted.last = source(instrument, options)
    return counted.last
  }
  return { price, counted }
}

describe('cachedMarketPrice', () => {
  it('asks the service once per instrument within the max age, and again after it', async () => {
    let now = 1_000_000
    const { price, counted } = countedServicePrice()
    const cached = cachedMarketPrice(price, { maxAgeMs: 5_000, refreshAfterMs: 5_000, now: () => now })
    const first = await cached(aapl, {})
    expect(first).toBeGreaterThan(0n)
    now += 4_999
    expect(await cached(aapl, {})).toBe(first)
    expect(counted.requests).toBe(1)
    now += 2
    await cached(aapl, {})
    expect(counted.requests).toBe(2)
  })

  it('asks for the next price in the background once the kept one is four fifths of its max age old', async () => {
    let now = 1_000_000
    const { price, counted } = countedServicePrice()
    const cached = cachedMarketPrice(price, { maxAgeMs: 5_000, now: () => now })
    const first = await cached(aapl, {})
    now += 3_999
    await cached(aapl, {})
    expect(counted.requests).toBe(1)
    // 4 s old: the kept price answers at once, and one request for the next leaves.
    now += 1
    const [a, b] = [cached(aapl, {}), cached(aapl, {})]
    expect(counted.requests).toBe(2)
    expect(await a).toBe(first)
    expect(await b).toBe(first)
    // Once it has answered, past the first price's max age, the one asked for at 4 s answers.
    await counted.last
    now += 1_001
    await cached(aapl, {})
    expect(counted.requests).toBe(2)
    // A quiet spell longer than the max age: the ask waits for a new price.
    now += 60_000
    expect(await cached(aapl, {})).toBeGreaterThan(0n)
    expect(counted.requests).toBe(3)
  })

  it('shares one request between concurrent asks, and keeps no failure', async () => {
    const { price, counted } = countedServicePrice()
    const cached = cachedMarketPrice(price, { maxAgeMs: 60_000 })
    const prices = await Promise.all([cached(aapl, {}), cached(aapl, {}), cached(aapl, {})])
    expect(new Set(prices).size).toBe(1)
    expect(counted.requests).toBe(1)

    const unknown = { ...aapl, marketSymbol: 'NOSUCHSTOCK' }
    await expect(cached(unknown, {})).rejects.toThrow()
    await expect(cached(unknown, {})).rejects.toThrow()
    expect(counted.requests).toBe(3)
  })
})
