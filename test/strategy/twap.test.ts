import { describe, expect, it } from 'vitest'
import { checkStrategyMarketRules } from '../../src/strategy/checkStrategyMarketRules.js'
import {
  createStrategy,
  createTwapStrategy,
  type ListingView,
  StrategyConfigError,
  strategyConfigSchema,
  type TwapStrategyConfig,
} from '../../src/strategy/index.js'
import { snapshot } from './snapshot.js'

// The TWAP strategy's plan and decisions, example by example: the issue's order of 1,050 shares of a
// Hong Kong stock with a lot of 100 in 10 slices, its remainder, and the configuration's refusals.

const startAt = '2026-03-02T01:30:00.000Z'
const startMs = Date.parse(startAt)
const order = {
  kind: 'twap',
  id: 'twap-0700',
  chainId: 31337,
  ticker: '0700',
  exchange: 1,
  side: 'buy',
  quantity: '1050',
  lotSize: 100,
  startAt,
  durationMinutes: 60,
  slices: 10,
} as const satisfies TwapStrategyConfig

const stockListing: ListingView = {
  chainId: 31337,
  ticker: '0700',
  exchange: 1,
  tokenKind: 'stock',
  lotSize: 100n,
}
const shareListing: ListingView = {
  chainId: 31337,
  ticker: '0700s',
  exchange: 1,
  tokenKind: 'share',
  lotSize: 100n,
}

/** `path: message` of every issue the schema finds in `input`. */
function problems(input: unknown): string[] {
  const parsed = strategyConfigSchema.safeParse(input)
  if (parsed.success) return []
  return parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)
}

describe('createTwapStrategy', () => {
  it('cuts 1,050 shares with a lot of 100 into ten slices of 100 and a remainder of 50, ten minutes apart with jitter', () => {
    const twap = createStrategy(order)
    if (twap.kind !== 'twap') throw new Error('expected a twap')
    expect(twap.slices.map((slice) => [slice.index, slice.intentId, slice.shares])).toEqual(
      Array.from({ length: 10 }, (_, i) => [i + 1, `twap:twap-0700:slice:${i + 1}`, 100n]),
    )
    expect(twap.remainder).toEqual({
      intentId: 'twap:twap-0700:remainder',
      ticker: '0700s',
      quantity: 50n * 10n ** 18n,
      atMs: twap.slices[9]?.atMs,
    })
    // Default jitter 20%: each slice in the first fifth of its six minutes.
    twap.slices.forEach((slice, i) => {
      expect(slice.atMs).toBeGreaterThanOrEqual(startMs + i * 360_000)
      expect(slice.atMs).toBeLessThanOrEqual(startMs + i * 360_000 + 72_000)
    })
    expect(new Set(twap.slices.map((slice) => slice.atMs - startMs)).size).toBe(10)
    expect([twap.startMs, twap.endMs]).toEqual([startMs, startMs + 3_600_000])
    // A restart computes the same plan.
    expect(createStrategy(order)).toMatchObject({ slices: twap.slices, remainder: twap.remainder })
  })

  it('returns the slices whose time has come, as share quantities with the limit, and the remainder with the last where 0700s is listed', () => {
    const twap = createTwapStrategy({ ...order, limitPrice: '418.6', jitterPct: 0 })
    expect(twap.evaluate(snapshot({ nowMs: startMs - 1 }))).toEqual([])
    const third = twap.evaluate({ ...snapshot({ nowMs: startMs + 2 * 360_000 }), listings: [stockListing] })
    expect(third).toEqual(
      [1, 2, 3].map((n) => ({
        intentId: `twap:twap-0700:slice:${n}`,
        chainId: 31337,
        ticker: '0700',
        exchange: 1,
        side: 'buy',
        amountIn: '100',
        amountType: 'stocktoken',
        limitPrice: 41_860_000_000n,
      })),
    )
    const end = startMs + 3_600_000
    const withShareToken = twap.evaluate({
      ...snapshot({ nowMs: end }),
      listings: [stockListing, shareListing],
    })
    expect(withShareToken).toHaveLength(11)
    expect(withShareToken.at(-1)).toEqual({
      intentId: 'twap:twap-0700:remainder',
      chainId: 31337,
      ticker: '0700s',
      exchange: 1,
      side: 'buy',
      amountIn: '50',
      amountType: 'stocktoken',
      limitPrice: 41_860_000_000n,
    })
    expect(twap.remainderDecision([stockListing, shareListing])).toEqual({ send: true })
    expect(twap.notes([stockListing, shareListing])).toEqual([])
  })

  it('refuses the remainder where the chain lists no ShareToken, and says why', () => {
    const twap = createTwapStrategy(order)
    const end = startMs + 3_600_000
    const intents = twap.evaluate({ ...snapshot({ nowMs: end }), listings: [stockListing] })
    expect(intents.map((intent) => intent.intentId)).toEqual(
      Array.from({ length: 10 }, (_, i) => `twap:twap-0700:slice:${i + 1}`),
    )
    const refused =
      'the remainder of 50 shares (not a whole lot of 100) is not traded: chain 31337 lists no ShareToken 0700s'
    expect(twap.remainderDecision([stockListing])).toEqual({ send: false, reason: refused })
    expect(twap.notes([stockListing])).toEqual([refused])
    // Another chain's ShareToken does not count.
    expect(twap.remainderDecision([stockListing, { ...shareListing, chainId: 1 }])).toMatchObject({
      send: false,
    })
    // Without the token lists, the remainder waits.
    expect(twap.evaluate(snapshot({ nowMs: end }))).toHaveLength(10)
    expect(twap.notes(undefined)).toEqual([
      "the remainder of 50 shares (not a whole lot of 100) waits: the chain's token list is not known yet, so whether chain 31337 lists the ShareToken 0700s is not known",
    ])
  })

  it('trades nothing when the token list gives the ticker another board lot than the configured one', () => {
    const twap = createTwapStrategy(order)
    const listings = [{ ...stockListing, lotSize: 200n }]
    expect(twap.evaluate({ ...snapshot({ nowMs: startMs + 3_600_000 }), listings })).toEqual([])
    expect(twap.notes(listings)[0]).toBe(
      "nothing is traded: the configured lotSize is 100, but chain 31337's token list gives 0700 a board lot of 200: set lotSize to 200",
    )
  })

  it('slices a US order in whole shares, its fraction the remainder, and a whole order has none', () => {
    const us = createTwapStrategy({
      ...order,
      ticker: 'AAPL',
      exchange: 0,
      quantity: '10.5',
      lotSize: undefined,
      slices: 4,
    })
    expect(us.slices.map((slice) => slice.shares)).toEqual([2n, 3n, 2n, 3n])
    expect(us.remainder?.quantity).toBe(5n * 10n ** 17n)
    expect(us.remainder?.ticker).toBe('AAPLs')
    const whole = createTwapStrategy({ ...order, quantity: '1000' })
    expect(whole.remainder).toBeNull()
    expect(whole.notes(undefined)).toEqual([])
  })

  it('takes windowMinutes for durationMinutes and keeps marketHours', () => {
    const twap = createTwapStrategy({
      ...order,
      durationMinutes: undefined,
      windowMinutes: 30,
      marketHours: 'open-only',
    })
    expect(twap.endMs - twap.startMs).toBe(1_800_000)
    expect(twap.marketHours).toBe('open-only')
  })
})

describe('twap configuration', () => {
  it("accepts the issue's order", () => {
    expect(problems(order)).toEqual([])
  })

  it('names each field at fault and the fix', () => {
    expect(problems({ ...order, lotSize: undefined })).toEqual([
      'lotSize: is required for the HK StockToken 0700: HK board lots differ per ticker; use its lot_size from GET /market/v1/tickers/{symbol}/info?market=hkex (e.g. 100)',
    ])
    expect(problems({ ...order, ticker: '0700s' })[0]).toMatch(
      /^ticker: 0700s is a ShareToken: give the StockToken ticker "0700"/,
    )
    expect(problems({ ...order, windowMinutes: 60 })).toEqual([
      'windowMinutes: give the window as durationMinutes or as windowMinutes (minutes from startAt), one of the two',
    ])
    expect(problems({ ...order, durationMinutes: undefined })).toEqual([
      'durationMinutes: give the window as durationMinutes or as windowMinutes (minutes from startAt), one of the two',
    ])
    expect(problems({ ...order, slices: 11 })).toEqual([
      'slices: 11 slices of 10 whole lots of 100: use at most 10 slices, so that each slice trades at least one lot',
    ])
    expect(problems({ ...order, quantity: '50' })[0]).toMatch(
      /^quantity: 50 shares is less than one lot of 100/,
    )
    expect(problems({ ...order, quantity: 1050 })[0]).toMatch(
      /^quantity: must be a positive decimal string in shares/,
    )
    expect(problems({ ...order, startAt: '2026-03-02 01:30' })[0]).toMatch(
      /^startAt: must be an ISO 8601 time with its zone/,
    )
    expect(problems({ ...order, jitterPct: 60 })[0]).toMatch(
      /^jitterPct: must be a whole number from 0 to 50/,
    )
    expect(problems({ ...order, limitPrice: '418.65' })[0]).toMatch(/^limitPrice: /)
    expect(
      problems({ ...order, ticker: '005930', exchange: 3, quantity: '10.5', lotSize: undefined })[0],
    ).toBe(
      'quantity: 10.5 is not a whole number of shares, but South Korea stocks trade in whole shares only',
    )
    expect(problems({ ...order, amountIn: '100' })[0]).toMatch(
      /^: unknown field "amountIn": the fields are kind, id/,
    )
  })

  it('throws StrategyConfigError naming the strategy', () => {
    expect(() => createTwapStrategy({ ...order, slices: 0 })).toThrow(StrategyConfigError)
    expect(() => createTwapStrategy({ ...order, slices: 0 })).toThrow(/"twap-0700" \(twap\)/)
  })
})

describe('twap market rules', () => {
  it("compares the configured lot with the ticker's, and the limit with its tick grid", async () => {
    const parsed = [
      strategyConfigSchema.parse({ ...order, lotSize: 200, slices: 5 }),
      strategyConfigSchema.parse({ ...order, id: 'twap-ok', limitPrice: '418.6' }),
    ]
    const report = await checkStrategyMarketRules(
      parsed,
      async () => ({ lotSize: 100n, spreadTableCode: '1' }),
      'strategies',
    )
    expect(report.checked).toBe(2)
    expect(report.problems).toEqual([
      {
        path: 'strategies.0.lotSize',
        message: 'is 200, but the HKEX board lot of 0700 is 100: set it to 100 (every slice is whole lots)',
      },
    ])
  })
})
