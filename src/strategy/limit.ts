import type { ExchangeCode } from '@stockroute/client/domain/markets.js'
import { parsePrice } from '@stockroute/client/domain/unitStrings.js'
import type { Price } from '@stockroute/client/domain/units.js'
import { type LimitStrategyConfig, limitStrategyConfigSchema } from './config.js'
import { instrumentOf } from './instrumentOf.js'
import { parseStrategyConfig } from './parseStrategyConfig.js'
import { priceKey } from './priceKey.js'
import type { MarketSymbol, Strategy, StrategyInput, StrategyIntent } from './types.js'

/** A limit strategy: its parsed limit and the single intent it emits once the price crosses it. */
export type LimitStrategy = Strategy & {
  readonly kind: 'limit'
  /** The limit, 1e8-scaled, in the market's currency (on the tick grid). */
  readonly limitPrice: Price
  /** The intent id it emits: `limit:<id>` (one trade, ever). */
  readonly intentId: string
}

/**
 * A strategy that buys (sells) once, when the fresh market price of the stock is at or below
 * (at or above) `limitPrice`. The intent carries `limitPrice`, so the engine's guard holds the firm
 * router price to the same limit: the market price only decides when to ask. A stale, missing or
 * zero price yields nothing. The intent id is `limit:<id>`, so the engine trades it at most once however
 * often the price crosses. A ShareToken (`AAPLs`) follows its stock's price (`AAPL`).
 *
 * Throws {@link StrategyConfigError} at creation for a bad configuration, including a limit off
 * the market's tick grid (HK and KR price bands with `spreadTableCode`, default the market's usual
 * table; US 0.01), with the nearest valid prices in the message.
 *
 * @example
 * const strategy = createLimitStrategy({
 *   id: 'buy-0700', chainId: 31337, ticker: '0700', exchange: 1,
 *   side: 'buy', amountIn: '100', amountType: 'stocktoken', limitPrice: '418.6',
 * })
 * strategy.evaluate({ nowMs, prices, positions: [], cash: [] })
 * // [{ intentId: 'limit:buy-0700', ..., limitPrice: 41860000000n }] once hkex:0700 <= 418.6
 */
export function createLimitStrategy(
  config: Omit<LimitStrategyConfig, 'kind'> & { kind?: 'limit' | undefined },
): LimitStrategy {
  const parsed = parseStrategyConfig(limitStrategyConfigSchema, { ...config, kind: 'limit' })
  const exchange: ExchangeCode = parsed.exchange
  const { market, symbol } = instrumentOf({ ticker: parsed.ticker, exchange })
  const limitPrice = parsePrice(parsed.limitPrice)
  const key = priceKey(market, symbol)
  const intentId = `limit:${parsed.id}`
  const intent: StrategyIntent = {
    intentId,
    chainId: parsed.chainId,
    ticker: parsed.ticker,
    exchange,
    side: parsed.side,
    amountIn: parsed.amountIn,
    ...(parsed.amountType === undefined ? {} : { amountType: parsed.amountType }),
    limitPrice,
  }
  return {
    id: parsed.id,
    kind: 'limit',
    limitPrice,
    intentId,
    marketHours: parsed.marketHours ?? 'any',
    symbols(): MarketSymbol[] {
      return [{ market, symbol }]
    },
    evaluate(input: StrategyInput): StrategyIntent[] {
      const quote = input.prices.get(key)
      if (quote === undefined || quote.stale || quote.price <= 0n) return []
      const crossed = parsed.side === 'buy' ? quote.price <= limitPrice : quote.price >= limitPrice
      return crossed ? [{ ...intent }] : []
    },
  }
}
