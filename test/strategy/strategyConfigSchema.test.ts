import { describe, expect, it } from 'vitest'
import { z } from 'zod'
import {
  createStrategy,
  type StrategyConfig,
  StrategyConfigError,
  strategyConfigSchema,
} from '../../src/strategy/index.js'

// The strategies' configuration is validated once, at the edge, by one discriminated union that
// the daemon's configuration embeds; every refusal names the field and says how to fix it.

const limit = {
  kind: 'limit',
  id: 'buy-0700',
  chainId: 31337,
  ticker: '0700',
  exchange: 1,
  side: 'buy',
  amountIn: '100',
  amountType: 'stocktoken',
  limitPrice: '418.6',
} as const satisfies StrategyConfig
const schedule = {
  kind: 'schedule',
  id: 'dca-aapl',
  chainId: 1,
  ticker: 'AAPL',
  exchange: 0,
  side: 'buy',
  amountIn: '250',
  cron: '0 14 * * 1-5',
} as const satisfies StrategyConfig
const rebalance = {
  kind: 'rebalance',
  id: 'core',
  chainId: 31337,
  driftThreshold: '0.05',
  targets: [
    { ticker: 'AAPL', exchange: 0, weight: '0.6' },
    { ticker: '0700', exchange: 1, weight: '0.4', lotSize: 100 },
  ],
} as const satisfies StrategyConfig

/** `path: message` of every issue the schema finds in `input`. */
function problems(input: unknown): string[] {
  const parsed = strategyConfigSchema.safeParse(input)
  if (parsed.success) return []
  return parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`)
}

function configError(input: unknown): StrategyConfigError {
  try {
    createStrategy(input)
  } catch (error) {
    if (error instanceof StrategyConfigError) return error
    throw error
  }
  throw new Error('expected a StrategyConfigError, nothing was thrown')
}

describe('strategyConfigSchema', () => {
  it('accepts each kind and keeps its fields', () => {
    for (const config of [limit, schedule, rebalance])
      expect(strategyConfigSchema.parse(config)).toEqual(config)
  })

  it('names the kinds there are when kind is missing or unknown', () => {
    const kinds = '"limit" (trade once when the price crosses a limit), "schedule"'
    expect(problems({ ...limit, kind: 'vwap' })).toEqual([expect.stringContaining(`kind: must be ${kinds}`)])
    expect(problems({ id: 'x' })).toEqual([expect.stringContaining(`kind: must be ${kinds}`)])
    expect(problems('limit')).toEqual([
      expect.stringContaining(': must be an object whose "kind" is "limit"'),
    ])
  })

  it('refuses an unknown field, listing the fields there are', () => {
    expect(problems({ ...schedule, cronExpression: '* * * * *' })).toEqual([
      ': unknown field "cronExpression": the fields are kind, id, chainId, ticker, exchange, side, amountIn, amountType, cron, timezone, maxCatchUp, marketHours',
    ])
    expect(
      problems({ ...rebalance, targets: [{ ticker: 'AAPL', exchange: 0, weight: '0.5', lot: 1 }] }),
    ).toEqual(['targets.0: unknown field "lot": the fields are ticker, exchange, weight, lotSize'])
  })

  it('says how to write each field', () => {
    expect(
      problems({
        ...limit,
        id: 'has space',
        chainId: 0,
        exchange: 2,
        side: 'long',
        amountIn: 100,
        limitPrice: '1e3',
      }),
    ).toEqual([
      expect.stringMatching(/^id: must be 1 to 64 letters, digits/),
      'chainId: must be a positive whole number: the chain id, e.g. 1 or 31337',
      'exchange: must be 0 (US), 1 (HK) or 3 (KR)',
      'side: must be "buy" or "sell"',
      expect.stringMatching(
        /^amountIn: must be a positive decimal string .* \(quoted: JSON numbers lose precision\)$/,
      ),
      expect.stringMatching(
        /^limitPrice: must be a positive decimal string in the market's currency per share/,
      ),
    ])
    expect(problems({ ...limit, amountIn: '0' })).toEqual([
      expect.stringMatching(/^amountIn: must be a positive/),
    ])
    expect(problems({ ...rebalance, driftThreshold: '1' })).toEqual([
      'driftThreshold: must be a fraction above 0 and below 1, e.g. "0.05" (5 percentage points)',
    ])
    expect(problems({ ...rebalance, targets: [{ ticker: 'AAPL', exchange: 0, weight: '1.5' }] })).toEqual([
      'targets.0.weight: must be a fraction from 0 to 1, e.g. "0.25" for a quarter of the portfolio',
    ])
    expect(problems({ ...rebalance, targets: [] })).toEqual([
      'targets: must list at least one target {ticker, exchange, weight}',
    ])
    expect(problems({ ...rebalance, windowMs: 10 })).toEqual([
      'windowMs: must be a whole number from 1000 to 2678400000 (ms; default 3600000, one hour)',
    ])
    expect(problems({ ...rebalance, fxRates: { hkex: 0.13 } })).toEqual([
      expect.stringMatching(/^fxRates.hkex: must be a positive decimal string in asset units per HKD/),
    ])
  })

  it('checks the rules between fields: ticks, cron, weights, lots, duplicates', () => {
    expect(problems({ ...limit, limitPrice: '418.7' })).toEqual([
      'limitPrice: Price 418.7 HKD is not on the tick grid: prices from 200 to below 500 HKD move in steps of 0.2 (hkex spread table "1"). Use 418.6 or 418.8.',
    ])
    expect(problems({ ...schedule, cron: '0 25 * * *' })).toEqual([
      expect.stringMatching(/^cron: "0 25 \* \* \*" is not a valid node-cron expression .*: use 5 fields/),
    ])
    expect(
      problems({
        ...rebalance,
        targets: [
          { ticker: 'AAPL', exchange: 0, weight: '0.6' },
          { ticker: 'AAPL', exchange: 0, weight: '0.1' },
          { ticker: '0700', exchange: 1, weight: '0.4' },
        ],
      }),
    ).toEqual([
      'targets.1.ticker: AAPL (exchange 0) is listed twice: give each ticker one target',
      expect.stringMatching(/^targets.2.lotSize: is required for the HK StockToken 0700/),
      'targets: weights sum to 1.1, more than 1: lower them so that they sum to at most 1 (the rest of the portfolio is held as cash)',
    ])
    // Weights may sum to exactly 1 (no cash kept).
    expect(
      problems({
        ...rebalance,
        targets: [
          { ticker: 'AAPL', exchange: 0, weight: '0.333333333333333334' },
          { ticker: 'MSFT', exchange: 0, weight: '0.666666666666666666' },
        ],
      }),
    ).toEqual([])
  })

  it('reports paths inside the configuration that embeds it', () => {
    const daemonLike = z.object({ strategies: z.array(strategyConfigSchema) })
    const parsed = daemonLike.safeParse({ strategies: [schedule, { ...limit, limitPrice: '418.7' }] })
    expect(parsed.success).toBe(false)
    expect(parsed.error?.issues.map((issue) => issue.path.join('.'))).toEqual(['strategies.1.limitPrice'])
  })
})

describe('createStrategy', () => {
  it('builds the strategy its kind names', () => {
    const built = [limit, schedule, rebalance].map((config) => createStrategy(config))
    expect(built.map((strategy) => [strategy.kind, strategy.id])).toEqual([
      ['limit', 'buy-0700'],
      ['schedule', 'dca-aapl'],
      ['rebalance', 'core'],
    ])
    expect(built.map((strategy) => strategy.symbols())).toEqual([
      [{ market: 'hkex', symbol: '0700' }],
      [{ market: 'usex', symbol: 'AAPL' }],
      [
        { market: 'usex', symbol: 'AAPL' },
        { market: 'hkex', symbol: '0700' },
      ],
    ])
  })

  it('throws a StrategyConfigError naming the strategy, the field and the fix', () => {
    const error = configError({ ...schedule, maxCatchUp: 1000 })
    expect(error.code).toBe('STRATEGY_CONFIG_INVALID')
    expect(error.issues.map((issue) => issue.path)).toEqual(['maxCatchUp'])
    expect(error.shortMessage).toBe(
      'Strategy "dca-aapl" (schedule) is invalid: maxCatchUp: must be a whole number from 1 to 100 (missed fire times traded at most after a downtime)',
    )
    expect(
      configError({ ...schedule, cron: 'daily', maxCatchUp: 1000 }).issues.map((issue) => issue.path),
    ).toEqual(['cron', 'maxCatchUp'])
    const several = configError({ ...limit, side: 'sell', amountType: 'stablecoin', amountIn: '2.5' })
    expect(several.shortMessage).toMatch(
      /^Strategy "buy-0700" \(limit\) is invalid: amountType: .* \(and 1 more problem, listed below\)$/,
    )
    expect(several.message.split('\n').slice(1)).toEqual([
      expect.stringMatching(/^ {2}amountType: stablecoin applies to buys only/),
      expect.stringMatching(/^ {2}amountIn: "2.5" is not a whole number of shares, but 0700 is a StockToken/),
    ])
    expect(several.details).toMatchObject({ strategy: '"buy-0700" (limit)' })
    expect(configError(null).shortMessage).toContain('Strategy (not an object) is invalid')
  })
})
