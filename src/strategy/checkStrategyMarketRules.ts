import { DomainRuleError } from '@stockroute/client/domain/domainRuleError.js'
import { marketDefaults } from '@stockroute/client/domain/marketRules.js'
import { type MarketCode, marketCodes } from '@stockroute/client/domain/markets.js'
import { assertOnTick } from '@stockroute/client/domain/tickRules.js'
import { parsePrice, parseStockQuantity } from '@stockroute/client/domain/unitStrings.js'
import type { z } from 'zod'
import type { strategyConfigSchema } from './config.js'
import { instrumentOf } from './instrumentOf.js'

// The rules of a strategy that only the ticker's own data can check: its board lot (HK lots differ
// per ticker) and its spread table. The schema checks every field alone; this runs once the
// tickers' rules are at hand (the service's ticker info, or the sandbox's catalogue), so that
// `stockroute config check` refuses what every fire would be refused for at run time.

/** A strategy as the schema outputs it. */
export type ParsedStrategyConfig = z.output<typeof strategyConfigSchema>

/** A ticker's rules, as its ticker info gives them. */
export type TickerRules = { lotSize: bigint; spreadTableCode: string }

/**
 * The rules of a stock on a market; `undefined` when the market lists no such stock. Throws when
 * they cannot be read (the service is unreachable): the strategies using it are then unchecked.
 */
export type TickerRulesLookup = (stock: {
  symbol: string
  market: MarketCode
}) => Promise<TickerRules | undefined>

/** A field that breaks a market rule: its path in the configuration file and what is wrong. */
export type StrategyRuleProblem = { path: string; message: string }

/** What could not be checked, and why. */
export type StrategyRuleUnchecked = { path: string; reason: string }

export type StrategyRulesReport = {
  problems: StrategyRuleProblem[]
  unchecked: StrategyRuleUnchecked[]
  /** How many orders and rebalance targets were checked against their ticker's rules. */
  checked: number
}

const marketNames = { usex: 'US', hkex: 'HKEX', krex: 'KRX' } as const satisfies Record<MarketCode, string>

/**
 * Checks each strategy's lot and tick rules against its ticker's own rules: a share quantity
 * (sells, `amountType: "stocktoken"` buys) of a StockToken must be whole lots; a limit price must be
 * on the tick grid of the ticker's spread table; a rebalance target's `lotSize` must be the
 * ticker's; and the market must list the ticker. Paths start at `pathPrefix` (e.g. `strategies`).
 *
 * @example
 * const report = await checkStrategyMarketRules(config.daemon.strategies, lookUp, 'strategies')
 * // report.problems[0].message: '50 shares is not a whole number of lots of 100 (HKEX board lot of 0700): …'
 */
export async function checkStrategyMarketRules(
  strategies: readonly ParsedStrategyConfig[],
  lookUp: TickerRulesLookup,
  pathPrefix: string,
): Promise<StrategyRulesReport> {
  const cache = new Map<string, Promise<TickerRules | undefined>>()
  const rulesOf = (symbol: string, market: MarketCode) => {
    const key = `${market}:${symbol}`
    let pending = cache.get(key)
    if (!pending) {
      pending = lookUp({ symbol, market })
      cache.set(key, pending)
    }
    return pending
  }
  const report: StrategyRulesReport = { problems: [], unchecked: [], checked: 0 }
  const checks = strategies.flatMap((strategy, index) => {
    const at = `${pathPrefix}.${index}`
    if (strategy.kind === 'rebalance')
      return strategy.targets.map((target, targetIndex) =>
        withRules(`${at}.targets.${targetIndex}`, target, (rules, symbol, market) => {
          if (target.lotSize !== undefined && BigInt(target.lotSize) !== rules.lotSize)
            report.problems.push({
              path: `${at}.targets.${targetIndex}.lotSize`,
              message: `is ${target.lotSize}, but the ${marketNames[market]} board lot of ${symbol} is ${rules.lotSize}: set it to ${rules.lotSize}`,
            })
        }),
      )
    if (strategy.kind === 'twap')
      return [
        withRules(at, strategy, (rules, symbol, market) => {
          const lotSize =
            strategy.lotSize === undefined ? marketDefaults[market].lotSize : BigInt(strategy.lotSize)
          if (lotSize !== rules.lotSize)
            report.problems.push({
              path: `${at}.lotSize`,
              message: `is ${lotSize ?? 'absent'}, but the ${marketNames[market]} board lot of ${symbol} is ${rules.lotSize}: set it to ${rules.lotSize} (every slice is whole lots)`,
            })
          const { limitPrice, spreadTableCode } = strategy
          if (limitPrice !== undefined)
            checkLimitTick(report, { limitPrice, spreadTableCode }, at, rules, symbol, market)
        }),
      ]
    if (strategy.kind === 'protect')
      return [
        withRules(at, strategy, (rules, symbol, market) => {
          if (strategy.lotSize !== undefined && BigInt(strategy.lotSize) !== rules.lotSize)
            report.problems.push({
              path: `${at}.lotSize`,
              message: `is ${strategy.lotSize}, but the ${marketNames[market]} board lot of ${symbol} is ${rules.lotSize}: set it to ${rules.lotSize} (exits sell whole lots)`,
            })
        }),
      ]
    return [
      withRules(at, strategy, (rules, symbol, market) => {
        const { tokenKind } = instrumentOf(strategy)
        const inShares = strategy.side === 'sell' || strategy.amountType === 'stocktoken'
        if (inShares && tokenKind === 'stock') {
          const quantity = parseStockQuantity(strategy.amountIn)
          if (quantity % rules.lotSize !== 0n) {
            const down = (quantity / rules.lotSize) * rules.lotSize
            const up = down + rules.lotSize
            report.problems.push({
              path: `${at}.amountIn`,
              message: `${quantity} shares is not a whole number of lots of ${rules.lotSize} (${marketNames[market]} board lot of ${symbol}): use ${down === 0n ? '' : `${down} or `}${up}`,
            })
          }
        }
        if (strategy.kind === 'limit') checkLimitTick(report, strategy, at, rules, symbol, market)
      }),
    ]
  })
  await Promise.all(checks)
  return report

  /** Runs `check` with the ticker's rules; a ticker not listed is a problem, a failed lookup leaves it unchecked. */
  async function withRules(
    at: string,
    order: { ticker: string; exchange: 0 | 1 | 3 },
    check: (rules: TickerRules, symbol: string, market: MarketCode) => void,
  ): Promise<void> {
    const { symbol } = instrumentOf(order)
    const market = marketCodes[order.exchange]
    let rules: TickerRules | undefined
    try {
      rules = await rulesOf(symbol, market)
    } catch (error) {
      report.unchecked.push({ path: at, reason: error instanceof Error ? error.message : String(error) })
      return
    }
    if (rules === undefined) {
      report.problems.push({
        path: `${at}.ticker`,
        message: `${market} lists no stock ${JSON.stringify(symbol)}: check the ticker and the exchange (${order.exchange})`,
      })
      return
    }
    report.checked += 1
    check(rules, symbol, market)
  }
}

/** A limit price's spread table and tick grid against the ticker's own (HK and KR; US has one grid). */
function checkLimitTick(
  report: StrategyRulesReport,
  strategy: { limitPrice: string; spreadTableCode?: string | undefined },
  at: string,
  rules: TickerRules,
  symbol: string,
  market: MarketCode,
) {
  const configured = strategy.spreadTableCode ?? marketDefaults[market].spreadTableCode
  if (market !== 'usex' && configured !== rules.spreadTableCode) {
    report.problems.push({
      path: `${at}.spreadTableCode`,
      message: `${strategy.spreadTableCode === undefined ? `is absent (the ${marketNames[market]} default ${JSON.stringify(configured)})` : `is ${JSON.stringify(configured)}`}, but ${symbol}'s spread_table_code is ${JSON.stringify(rules.spreadTableCode)}: set it to ${JSON.stringify(rules.spreadTableCode)}`,
    })
    try {
      assertOnTick({
        market,
        spreadTableCode: rules.spreadTableCode,
        price: parsePrice(strategy.limitPrice),
      })
    } catch (error) {
      if (!(error instanceof DomainRuleError)) throw error
      report.problems.push({ path: `${at}.limitPrice`, message: error.shortMessage })
    }
  }
}
