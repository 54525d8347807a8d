import { DomainRuleError } from '@stockroute/client/domain/domainRuleError.js'
import { marketDefaults } from '@stockroute/client/domain/marketRules.js'
import { type ExchangeCode, marketCodes } from '@stockroute/client/domain/markets.js'
import { assertOnTick } from '@stockroute/client/domain/tickRules.js'
import { parsePrice, parseStockQuantity } from '@stockroute/client/domain/unitStrings.js'
import cron from 'node-cron'
import { formatUnits, parseUnits } from 'viem/utils'
import { z } from 'zod'
import { instrumentOf } from './instrumentOf.js'

// The strategies' configuration: one zod schema per kind and their discriminated union, the edge
// where a configuration file (the daemon embeds `strategyConfigSchema`) becomes typed values.
// Every message completes the field's path ("amountIn: must be ...") and says how to fix it.

/** A strict object: a misspelt field is an error that lists the fields there are, not a silent no-op. */
const strictObject = <Shape extends z.core.$ZodLooseShape>(shape: Shape) =>
  z.strictObject(shape, {
    error: (issue) => {
      if (issue.code === 'unrecognized_keys')
        return `unknown field${issue.keys.length > 1 ? 's' : ''} ${issue.keys.map((key) => JSON.stringify(key)).join(', ')}: the fields are ${Object.keys(shape).join(', ')}`
      if (issue.code === 'invalid_type')
        return `must be an object with the fields ${Object.keys(shape).join(', ')}`
      return undefined
    },
  })

/** Rules between fields run once every field is valid on its own (they may then rely on its format). */
const onceFieldsAreValid = { when: (payload: { issues: readonly unknown[] }) => payload.issues.length === 0 }

/** A whole number from `min` to `max`; any other value is refused with one message that says so. */
const wholeNumber = (min: number, max: number, hint = '') => {
  const message = `must be a whole number from ${min} to ${max}${hint}`
  return z.number({ error: message }).int(message).min(min, message).max(max, message)
}

/** A plain decimal string (no sign, exponent or separators) with at most `decimals` decimals. */
const decimalString = (parameters: {
  decimals: number
  example: string
  unit: string
  positive: boolean
}) => {
  const { decimals, example, unit, positive } = parameters
  const message = `must be a ${positive ? 'positive ' : ''}decimal string in ${unit} with at most ${decimals} decimals, e.g. "${example}" (quoted: JSON numbers lose precision)`
  const schema = z.string({ error: message }).regex(new RegExp(`^\\d+(\\.\\d{1,${decimals}})?$`), message)
  return positive ? schema.refine((text) => !/^[0.]+$/.test(text), message) : schema
}

const strategyId = z
  .string({ error: 'must be a string' })
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$/,
    'must be 1 to 64 letters, digits, "_", "-" or ".", starting with a letter or digit, e.g. "dca-aapl" (it is part of every intent id, so keep it stable)',
  )

const chainIdMessage = 'must be a positive whole number: the chain id, e.g. 1 or 31337'
const chainId = z
  .number({ error: chainIdMessage })
  .int(chainIdMessage)
  .positive(chainIdMessage)
  .max(Number.MAX_SAFE_INTEGER, chainIdMessage)

const exchange = z.union([z.literal(0), z.literal(1), z.literal(3)], {
  error: 'must be 0 (US), 1 (HK) or 3 (KR)',
})

const ticker = z
  .string({ error: 'must be a string' })
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9.-]{0,31}$/,
    'must be a ticker of at most 32 letters, digits, "." or "-", e.g. "AAPL", "0700", or "AAPLs" for a ShareToken',
  )

const side = z.enum(['buy', 'sell'], { error: 'must be "buy" or "sell"' })

const amountIn = decimalString({
  decimals: 18,
  example: '100',
  unit: 'natural units (the asset to spend on a stablecoin buy, else shares)',
  positive: true,
})

const amountType = z.enum(['stablecoin', 'stocktoken'], {
  error:
    'must be "stablecoin" (buy: amountIn is the asset to spend; the default for buys) or "stocktoken" (amountIn is a share quantity; the only choice for sells)',
})

/** When a strategy may trade: always (`any`, the default) or only while its instruments' exchanges are open. */
const marketHours = z.enum(['any', 'open-only'], {
  error:
    'must be "any" (trade whenever the strategy fires; the default) or "open-only" (trade only while the exchange of each of its instruments is open, docs/market-sessions.md)',
})

const orderFields = {
  /** Stable name of the strategy; part of every intent id it emits. */
  id: strategyId,
  chainId,
  /** StockToken ticker, or ShareToken ticker (stock ticker + `s`). */
  ticker,
  exchange,
  side,
  /** Natural units: the asset to spend (stablecoin buy) or the share quantity. */
  amountIn,
  /** Buys: `stablecoin` (default) or `stocktoken`; sells are always `stocktoken`. */
  amountType: amountType.optional(),
}

type OrderFields = {
  ticker: string
  exchange: ExchangeCode
  side: 'buy' | 'sell'
  amountIn: string
  amountType?: 'stablecoin' | 'stocktoken' | undefined
}

/** The rules an order's fields obey together (each field alone is already valid). */
function checkOrderFields(config: OrderFields, context: z.core.$RefinementCtx): void {
  const { market, tokenKind, symbol } = instrumentOf(config)
  if (market === 'krex' && tokenKind === 'share')
    context.addIssue({
      code: 'custom',
      path: ['ticker'],
      message: `${config.ticker} is a ShareToken, but South Korea stocks trade in whole shares only: use the StockToken ticker ${JSON.stringify(symbol)}`,
    })
  if (config.side === 'sell' && config.amountType === 'stablecoin')
    context.addIssue({
      code: 'custom',
      path: ['amountType'],
      message:
        'stablecoin applies to buys only: a sell\'s amountIn is a share quantity; remove amountType or set it to "stocktoken"',
    })
  const inShares = config.side === 'sell' || config.amountType === 'stocktoken'
  if (inShares && tokenKind === 'stock')
    try {
      parseStockQuantity(config.amountIn)
    } catch {
      context.addIssue({
        code: 'custom',
        path: ['amountIn'],
        message: `${JSON.stringify(config.amountIn)} is not a whole number of shares, but ${config.ticker} is a StockToken (whole shares): use a whole number${market === 'krex' ? '' : `, or trade the ShareToken ${JSON.stringify(`${config.ticker}s`)} for fractions`}`,
      })
    }
}

/**
 * `limit`: buy or sell once the fresh market price crosses `limitPrice` (buy: price <= limit;
 * sell: price >= limit). The intent carries the limit, so the engine's guard holds the firm router
 * price to it too. The limit must lie on the market's tick grid (HK and KR price bands, US 0.01).
 */
export const limitStrategyConfigSchema = strictObject({
  kind: z.literal('limit'),
  ...orderFields,
  /** Decimal price in the market's currency (USD, HKD, KRW) per share. */
  limitPrice: decimalString({
    decimals: 8,
    example: '418.6',
    unit: "the market's currency per share (USD, HKD or KRW)",
    positive: true,
  }),
  /** The ticker's spread_table_code (HK, KR); default the market's usual table (`1`, `KRX`). */
  spreadTableCode: z
    .string({ error: 'must be a string: the ticker\'s spread_table_code, e.g. "1" (HK) or "KRX" (KR)' })
    .min(1, 'must not be empty: the ticker\'s spread_table_code, e.g. "1" (HK) or "KRX" (KR)')
    .optional(),
  /** `open-only`: evaluated only while the exchange is open (regular hours, holidays); default `any`. */
  marketHours: marketHours.optional(),
}).superRefine((config, context) => {
  checkOrderFields(config, context)
  const market = marketCodes[config.exchange]
  const spreadTableCode = config.spreadTableCode ?? marketDefaults[market].spreadTableCode
  try {
    assertOnTick({ market, spreadTableCode, price: parsePrice(config.limitPrice) })
  } catch (error) {
    if (!(error instanceof DomainRuleError)) throw error
    context.addIssue({
      code: 'custom',
      path: [error.code === 'UNKNOWN_SPREAD_TABLE' ? 'spreadTableCode' : 'limitPrice'],
      message: error.shortMessage,
    })
  }
}, onceFieldsAreValid)

/**
 * `schedule`: a fixed amount on a node-cron schedule (dollar-cost averaging). Each fire time is
 * traded once; after a downtime at most `maxCatchUp` missed fire times (the latest) are traded.
 */
export const scheduleStrategyConfigSchema = strictObject({
  kind: z.literal('schedule'),
  ...orderFields,
  /** node-cron expression: 5 fields, or 6 with seconds first; evaluated in `timezone`. */
  cron: z
    .string({ error: 'must be a node-cron expression string, e.g. "0 14 * * 1-5"' })
    .superRefine((expression, context) => {
      const problem = cronProblem(expression)
      if (problem !== undefined) context.addIssue({ code: 'custom', message: problem })
    }),
  /** IANA time zone the expression is read in (default `UTC`, so fire times do not depend on the host). */
  timezone: z
    .string({ error: 'must be an IANA time zone name, e.g. "UTC" or "America/New_York"' })
    .superRefine((name, context) => {
      if (!isTimeZone(name))
        context.addIssue({
          code: 'custom',
          message: `${JSON.stringify(name)} is not a time zone this runtime knows: use an IANA name such as "UTC", "America/New_York" or "Asia/Hong_Kong"`,
        })
    })
    .optional(),
  /** Most missed fire times traded in one evaluation (default 1: only the latest after a downtime). */
  maxCatchUp: wholeNumber(1, 100, ' (missed fire times traded at most after a downtime)').optional(),
  /** `open-only`: evaluated only while the exchange is open; a fire time while it is closed is not traded. Default `any`. */
  marketHours: marketHours.optional(),
}).superRefine(checkOrderFields, onceFieldsAreValid)

/** Why `expression` is not a valid node-cron expression, or undefined when it is. */
function cronProblem(expression: string): string | undefined {
  const hint =
    'use 5 fields (minute hour day-of-month month day-of-week) or 6 with seconds first, e.g. "0 14 * * 1-5" (14:00 on weekdays) or "*/5 * * * * *" (every 5 seconds)'
  let reasons: string[]
  try {
    if (cron.validate(expression)) return undefined
    reasons = cron.validateDetailed(expression).errors.map((error) => error.message)
  } catch (error) {
    reasons = [error instanceof Error ? error.message : String(error)]
  }
  return `${JSON.stringify(expression)} is not a valid node-cron expression${reasons.length > 0 ? ` (${reasons.join('; ')})` : ''}: ${hint}`
}

/** Whether the runtime's Intl knows the IANA time zone `name`. */
function isTimeZone(name: string): boolean {
  try {
    new Intl.DateTimeFormat('en-US', { timeZone: name })
    return true
  } catch {
    return false
  }
}

/** Weights and thresholds are fractions with 18 decimals. */
const fractionDecimals = 18
const fractionScale = 10n ** BigInt(fractionDecimals)

const fxRate = (example: string, currency: string) =>
  decimalString({ decimals: 8, example, unit: `asset units per ${currency}`, positive: true })

const rebalanceTarget = strictObject({
  ticker,
  exchange,
  /** Share of the chain's portfolio (cash + the targets' holdings) this ticker should hold, 0 to 1. */
  weight: decimalString({
    decimals: 18,
    example: '0.25',
    unit: 'a fraction of the portfolio (0 to 1)',
    positive: false,
  }).refine(
    (text) => /^(0(\.\d+)?|1(\.0+)?)$/.test(text),
    'must be a fraction from 0 to 1, e.g. "0.25" for a quarter of the portfolio',
  ),
  /** The ticker's board lot in shares; required for HK StockTokens (their lots differ per ticker). */
  lotSize: wholeNumber(1, 1_000_000, " (shares per board lot: the ticker's lot_size)").optional(),
})

/**
 * `rebalance`: target weights of a chain's portfolio (cash + the targets' holdings, valued at the
 * fresh market prices in the asset); a target whose weight drifts by more than `driftThreshold`
 * is traded back toward its weight in whole lots, at most once per `windowMs` window.
 */
export const rebalanceStrategyConfigSchema = strictObject({
  kind: z.literal('rebalance'),
  id: strategyId,
  chainId,
  targets: z
    .array(rebalanceTarget, { error: 'must be a list of {ticker, exchange, weight, lotSize?}' })
    .min(1, 'must list at least one target {ticker, exchange, weight}'),
  /** Largest tolerated |current weight - target weight|, a fraction: "0.05" is 5 percentage points. */
  driftThreshold: decimalString({
    decimals: 18,
    example: '0.05',
    unit: 'a fraction of the portfolio (0.05 is 5 percentage points)',
    positive: true,
  }).refine(
    (text) => /^0\.\d+$/.test(text),
    'must be a fraction above 0 and below 1, e.g. "0.05" (5 percentage points)',
  ),
  /** Asset units per unit of each market's currency; absent markets keep the defaults. */
  fxRates: strictObject({
    usex: fxRate('1', 'USD').optional(),
    hkex: fxRate('0.1285', 'HKD').optional(),
    krex: fxRate('0.00072', 'KRW').optional(),
  }).optional(),
  /** Length of a trading window, ms (default 1 hour): each target trades at most once per window. */
  windowMs: wholeNumber(1_000, 31 * 86_400_000, ' (ms; default 3600000, one hour)').optional(),
  /** `open-only`: evaluated only while the exchanges of all its targets are open. Default `any`. */
  marketHours: marketHours.optional(),
}).superRefine((config, context) => {
  const seen = new Set<string>()
  let weightSum = 0n
  config.targets.forEach((target, index) => {
    const { market, tokenKind, symbol } = instrumentOf(target)
    const key = `${target.exchange}:${target.ticker}`
    if (seen.has(key))
      context.addIssue({
        code: 'custom',
        path: ['targets', index, 'ticker'],
        message: `${target.ticker} (exchange ${target.exchange}) is listed twice: give each ticker one target`,
      })
    seen.add(key)
    if (market === 'krex' && tokenKind === 'share')
      context.addIssue({
        code: 'custom',
        path: ['targets', index, 'ticker'],
        message: `${target.ticker} is a ShareToken, but South Korea stocks trade in whole shares only: use the StockToken ticker ${JSON.stringify(symbol)}`,
      })
    if (market === 'hkex' && tokenKind === 'stock' && target.lotSize === undefined)
      context.addIssue({
        code: 'custom',
        path: ['targets', index, 'lotSize'],
        message: `is required for the HK StockToken ${target.ticker}: HK board lots differ per ticker; use its lot_size from GET /market/v1/tickers/{symbol}/info?market=hkex (e.g. 100)`,
      })
    weightSum += parseUnits(target.weight, fractionDecimals)
  })
  if (weightSum > fractionScale)
    context.addIssue({
      code: 'custom',
      path: ['targets'],
      message: `weights sum to ${formatUnits(weightSum, fractionDecimals)}, more than 1: lower them so that they sum to at most 1 (the rest of the portfolio is held as cash)`,
    })
}, onceFieldsAreValid)

/** Longest TWAP window: one week, in minutes. */
const maxTwapMinutes = 7 * 24 * 60

const twapStartMessage =
  'must be an ISO 8601 time with its zone, e.g. "2026-03-02T01:30:00Z" or "2026-03-02T09:30:00+08:00", or "first-run" (when the daemon first runs it)'
const twapMinutes = wholeNumber(1, maxTwapMinutes, ' (minutes: the window from startAt)')

/**
 * `twap`: a sliced order. `quantity` shares of a StockToken are bought or sold in `slices` slices
 * of whole lots spread over the window from `startAt` (`durationMinutes`, or its synonym
 * `windowMinutes`), each slice time moved later by a deterministic pseudo-random share of up to
 * `jitterPct` percent of its part of the window. What is not a whole lot trades as the ShareToken
 * where the chain lists one (src/strategy/twap.ts).
 */
export const twapStrategyConfigSchema = strictObject({
  kind: z.literal('twap'),
  id: strategyId,
  chainId,
  /** The StockToken ticker (a remainder that is not a whole lot trades as its ShareToken, ticker + `s`). */
  ticker,
  exchange,
  side,
  /** The whole order in shares, a decimal string: e.g. "1050" (a fraction is possible where a ShareToken is listed). */
  quantity: decimalString({ decimals: 18, example: '1050', unit: 'shares', positive: true }),
  /**
   * When the window opens: ISO 8601 with a zone, e.g. "2026-03-02T01:30:00Z"; or "first-run": when
   * the daemon first runs the strategy (kept in the ledger as the first slice's time).
   */
  startAt: z.union([z.literal('first-run'), z.iso.datetime({ offset: true, error: twapStartMessage })], {
    error: twapStartMessage,
  }),
  /** Length of the window from `startAt`, minutes (or `windowMinutes`: give one of the two). */
  durationMinutes: twapMinutes.optional(),
  /** Synonym of `durationMinutes`: the window's length from `startAt`, minutes. */
  windowMinutes: twapMinutes.optional(),
  /** How many slices the order is cut into. */
  slices: wholeNumber(1, 1000, ' (how many slices the order is cut into)'),
  /** Up to this percentage of a slice's part of the window each slice time moves later (default 20). */
  jitterPct: wholeNumber(0, 50, ' (percent of a slice interval; default 20)').optional(),
  /** Worst price per share of each slice, in the market's currency, on the tick grid. */
  limitPrice: decimalString({
    decimals: 8,
    example: '418.6',
    unit: "the market's currency per share (USD, HKD or KRW)",
    positive: true,
  }).optional(),
  /** The ticker's spread_table_code (HK, KR) for the limit's tick grid; default the market's usual table. */
  spreadTableCode: z
    .string({ error: 'must be a string: the ticker\'s spread_table_code, e.g. "1" (HK) or "KRX" (KR)' })
    .min(1, 'must not be empty: the ticker\'s spread_table_code, e.g. "1" (HK) or "KRX" (KR)')
    .optional(),
  /** The ticker's board lot in shares; required for HK StockTokens (their lots differ per ticker). */
  lotSize: wholeNumber(1, 1_000_000, " (shares per board lot: the ticker's lot_size)").optional(),
  /** `open-only`: evaluated only while the exchange is open; slices due while it is closed go when it opens. Default `any`. */
  marketHours: marketHours.optional(),
}).superRefine((config, context) => {
  const { market, tokenKind, symbol } = instrumentOf(config)
  const issue = (path: string, message: string) => context.addIssue({ code: 'custom', path: [path], message })
  if (tokenKind === 'share')
    issue(
      'ticker',
      `${config.ticker} is a ShareToken: give the StockToken ticker ${JSON.stringify(symbol)} (the part of the order that is not a whole lot trades as the ShareToken where the chain lists one)`,
    )
  if ((config.durationMinutes === undefined) === (config.windowMinutes === undefined))
    issue(
      config.durationMinutes === undefined ? 'durationMinutes' : 'windowMinutes',
      'give the window as durationMinutes or as windowMinutes (minutes from startAt), one of the two',
    )
  const lotSize = config.lotSize === undefined ? marketDefaults[market].lotSize : BigInt(config.lotSize)
  if (market === 'hkex' && config.lotSize === undefined)
    issue(
      'lotSize',
      `is required for the HK StockToken ${config.ticker}: HK board lots differ per ticker; use its lot_size from GET /market/v1/tickers/{symbol}/info?market=hkex (e.g. 100)`,
    )
  const wholeShares = parseUnits(config.quantity, 18) / 10n ** 18n
  if (market === 'krex' && !/^\d+$/.test(config.quantity))
    issue(
      'quantity',
      `${config.quantity} is not a whole number of shares, but South Korea stocks trade in whole shares only`,
    )
  else if (lotSize !== null) {
    const lots = wholeShares / lotSize
    if (lots === 0n)
      issue(
        'quantity',
        `${config.quantity} shares is less than one lot of ${lotSize}: a TWAP slices whole lots; trade it with a limit or schedule order instead`,
      )
    else if (BigInt(config.slices) > lots)
      context.addIssue({
        code: 'custom',
        path: ['slices'],
        message: `${config.slices} slices of ${lots} whole lot${lots === 1n ? '' : 's'} of ${lotSize}: use at most ${lots} slices, so that each slice trades at least one lot`,
      })
  }
  if (config.limitPrice !== undefined) {
    const spreadTableCode = config.spreadTableCode ?? marketDefaults[market].spreadTableCode
    try {
      assertOnTick({ market, spreadTableCode, price: parsePrice(config.limitPrice) })
    } catch (error) {
      if (!(error instanceof DomainRuleError)) throw error
      issue(error.code === 'UNKNOWN_SPREAD_TABLE' ? 'spreadTableCode' : 'limitPrice', error.shortMessage)
    }
  }
}, onceFieldsAreValid)

/** A percentage as a decimal string, e.g. "8" or "2.5" (4 decimals at most), above 0 and below `below`. */
const percent = (example: string, below?: number) => {
  const range = below === undefined ? 'above 0' : `above 0 and below ${below}`
  return decimalString({
    decimals: 4,
    example,
    unit: `percent (${range})`,
    positive: true,
  }).refine(
    (text) => below === undefined || Number(text) < below,
    `must be a percentage ${range}, e.g. "${example}"`,
  )
}

const triggerPrice = (example: string) =>
  decimalString({
    decimals: 8,
    example,
    unit: "the market's currency per share (USD, HKD or KRW)",
    positive: true,
  })

/**
 * `protect`: protective exits of a held position: a stop-loss and a take-profit (a percentage of the
 * position's average cost from the ledger, or a price), and a trailing stop (a percentage under the
 * highest fresh price seen since the position opened). Each sells `fraction` of the position (default
 * all, whole lots) once per position epoch (src/strategy/protect.ts).
 */
export const protectStrategyConfigSchema = strictObject({
  kind: z.literal('protect'),
  id: strategyId,
  chainId,
  /** The token held: StockToken ticker, or ShareToken ticker (stock ticker + `s`). */
  ticker,
  exchange,
  /** Sell when the price falls this many percent under the average cost, e.g. "8". */
  stopLossPct: percent('8', 100).optional(),
  /** Sell when the price is at or under this price (market currency per share). */
  stopLossPrice: triggerPrice('190.5').optional(),
  /** Sell when the price rises this many percent over the average cost, e.g. "15". */
  takeProfitPct: percent('15').optional(),
  /** Sell when the price is at or over this price (market currency per share). */
  takeProfitPrice: triggerPrice('260').optional(),
  /** Sell when the price falls this many percent under the highest price since the position opened. */
  trailingStopPct: percent('5', 100).optional(),
  /** The part of the position each exit sells, from 0 (excluded) to 1 (default 1: all of it). */
  fraction: decimalString({
    decimals: 18,
    example: '0.5',
    unit: 'a fraction of the position (above 0, at most 1)',
    positive: true,
  })
    .refine(
      (text) => /^(0\.\d+|1(\.0+)?)$/.test(text),
      'must be a fraction above 0 and at most 1, e.g. "0.5" (half of the position) or "1" (all of it)',
    )
    .optional(),
  /** The ticker's board lot in shares (HK StockTokens); default the lot the daemon knows, else the market's. */
  lotSize: wholeNumber(1, 1_000_000, " (shares per board lot: the ticker's lot_size)").optional(),
  /** Asset units per unit of each market's currency, for the percentages of the average cost (HK, KR). */
  fxRates: strictObject({
    usex: fxRate('1', 'USD').optional(),
    hkex: fxRate('0.1285', 'HKD').optional(),
    krex: fxRate('0.00072', 'KRW').optional(),
  }).optional(),
  /** `open-only`: exits are watched and sold only while the exchange is open. Default `any`. */
  marketHours: marketHours.optional(),
}).superRefine((config, context) => {
  const issue = (path: string, message: string) => context.addIssue({ code: 'custom', path: [path], message })
  const { market, tokenKind, symbol } = instrumentOf(config)
  if (market === 'krex' && tokenKind === 'share')
    issue(
      'ticker',
      `${config.ticker} is a ShareToken, but South Korea stocks trade in whole shares only: use the StockToken ticker ${JSON.stringify(symbol)}`,
    )
  if (config.stopLossPct !== undefined && config.stopLossPrice !== undefined)
    issue('stopLossPrice', 'give the stop-loss as stopLossPct or as stopLossPrice, not both')
  if (config.takeProfitPct !== undefined && config.takeProfitPrice !== undefined)
    issue('takeProfitPrice', 'give the take-profit as takeProfitPct or as takeProfitPrice, not both')
  const triggers = [
    config.stopLossPct,
    config.stopLossPrice,
    config.takeProfitPct,
    config.takeProfitPrice,
    config.trailingStopPct,
  ]
  if (triggers.every((value) => value === undefined))
    issue(
      'stopLossPct',
      'give at least one exit: stopLossPct or stopLossPrice, takeProfitPct or takeProfitPrice, trailingStopPct',
    )
  if (
    config.stopLossPrice !== undefined &&
    config.takeProfitPrice !== undefined &&
    parsePrice(config.stopLossPrice) >= parsePrice(config.takeProfitPrice)
  )
    issue(
      'takeProfitPrice',
      `${config.takeProfitPrice} is not above the stopLossPrice ${config.stopLossPrice}: a take-profit sells above the stop-loss`,
    )
}, onceFieldsAreValid)

/**
 * Any strategy, chosen by `kind`: `limit`, `schedule`, `rebalance`, `twap` or `protect`. The daemon's configuration
 * embeds it (a list of these); {@link createStrategy} turns one into a {@link Strategy}.
 */
export const strategyConfigSchema = z.discriminatedUnion(
  'kind',
  [
    limitStrategyConfigSchema,
    scheduleStrategyConfigSchema,
    rebalanceStrategyConfigSchema,
    twapStrategyConfigSchema,
    protectStrategyConfigSchema,
  ],
  {
    error: (issue) => {
      const kinds =
        '"limit" (trade once when the price crosses a limit), "schedule" (a fixed amount on a cron schedule), "rebalance" (target weights per chain), "twap" (an order sliced over a time window) or "protect" (stop-loss, take-profit and trailing stop of a position)'
      if (issue.code === 'invalid_union') return `must be ${kinds}`
      if (issue.code === 'invalid_type') return `must be an object whose "kind" is ${kinds}`
      return undefined
    },
  },
)

/** A limit strategy as written in a configuration file. */
export type LimitStrategyConfig = z.input<typeof limitStrategyConfigSchema>
/** A schedule strategy as written in a configuration file. */
export type ScheduleStrategyConfig = z.input<typeof scheduleStrategyConfigSchema>
/** A rebalance strategy as written in a configuration file. */
export type RebalanceStrategyConfig = z.input<typeof rebalanceStrategyConfigSchema>
/** One rebalance target as written in a configuration file. */
export type RebalanceTargetConfig = z.input<typeof rebalanceTarget>
/** A TWAP (sliced order) strategy as written in a configuration file. */
export type TwapStrategyConfig = z.input<typeof twapStrategyConfigSchema>
/** A protect (stop-loss, take-profit, trailing stop) strategy as written in a configuration file. */
export type ProtectStrategyConfig = z.input<typeof protectStrategyConfigSchema>
/** Any strategy as written in a configuration file. */
export type StrategyConfig = z.input<typeof strategyConfigSchema>
