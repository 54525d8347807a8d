import { marketDefaults } from '@stockroute/client/domain/marketRules.js'
import type { ExchangeCode, MarketCode, TokenKind } from '@stockroute/client/domain/markets.js'
import { defaultFxRates, type FxRates, marketPriceInAsset } from '@stockroute/client/domain/quotePrice.js'
import { divideRounded } from '@stockroute/client/domain/unitConversions.js'
import { formatTokenShares, parsePrice } from '@stockroute/client/domain/unitStrings.js'
import { type AssetAmount, shareDecimals } from '@stockroute/client/domain/units.js'
import { parseUnits } from 'viem/utils'
import { type RebalanceStrategyConfig, rebalanceStrategyConfigSchema } from './config.js'
import { instrumentOf } from './instrumentOf.js'
import { parseStrategyConfig } from './parseStrategyConfig.js'
import { priceKey } from './priceKey.js'
import type { MarketSymbol, Strategy, StrategyInput, StrategyIntent } from './types.js'

/** Default length of a rebalance window: one hour. */
export const defaultRebalanceWindowMs = 3_600_000

/** Weights and the drift threshold are fractions scaled by 1e18. */
const fractionDecimals = 18
const fractionScale = 10n ** BigInt(fractionDecimals)
const shareScale = 10n ** BigInt(shareDecimals)

/** A rebalance strategy with its parsed settings. */
export type RebalanceStrategy = Strategy & {
  readonly kind: 'rebalance'
  readonly chainId: number
  /** Window length, ms: each target trades at most once per window (the window is in the intent id). */
  readonly windowMs: number
  /** The FX rates it values prices with (asset units per unit of each market's currency, 1e8-scaled). */
  readonly fxRates: FxRates
}

type Target = {
  ticker: string
  exchange: ExchangeCode
  market: MarketCode
  symbol: string
  tokenKind: TokenKind
  /** Target weight, scaled by 1e18. */
  weight: bigint
  /** Lot size from the configuration (required for HK StockTokens), else the market's default. */
  lotSize: bigint | null
  key: string
}

type Holding = {
  target: Target
  tokenKind: TokenKind
  /** Token base units held (whole shares, or 1e18 units per share). */
  balance: bigint
  lotSize: bigint | null
  /** Value of the holding in asset base units (price rounded down). */
  value: bigint
  /** Price of one whole share in asset base units, rounded up: what quantities are computed with. */
  tradePrice: bigint
}

/**
 * A strategy that keeps a chain's portfolio at target weights. The portfolio is the chain's cash
 * plus its holdings of the target tickers (other holdings are not the strategy's), each valued at
 * its fresh market price converted to the chain's asset with `fxRates` (domain
 * `marketPriceInAsset`; a ShareToken balance counts balance / 1e18 shares). A target whose weight
 * differs from its target weight by more than `driftThreshold` is traded toward it: the value
 * difference divided by the price per share (rounded up, so quantities err low), rounded DOWN to
 * whole lots (the lot from the position view, else the configuration, else the market's: 1 for US
 * and KR); ShareTokens trade 18-decimal fractions, rounded down. Sells never exceed the holding;
 * buys (as `stocktoken` quantities) never cost more than the cash left after the buys before them;
 * a quantity that rounds to zero is no trade. Sells come before buys.
 *
 * Any missing, stale or zero price of a target, or no cash view for the chain, and nothing is
 * traded (the weights cannot be known). Intent ids are
 * `rebalance:<id>:<chainId>:<ticker>:<window start ISO>`, so within one `windowMs` window (default
 * one hour) the engine trades each target at most once, however often the strategy is evaluated.
 * All amounts are bigint.
 *
 * Throws {@link StrategyConfigError} at creation for a bad configuration: weights summing to more
 * than 1 (the rest is cash), a duplicate target, a KR ShareToken, an HK StockToken without lotSize.
 *
 * @example
 * const rebalance = createRebalanceStrategy({
 *   id: 'core', chainId: 31337, driftThreshold: '0.05',
 *   targets: [{ ticker: 'AAPL', exchange: 0, weight: '0.6' }, { ticker: '0700', exchange: 1, weight: '0.3', lotSize: 100 }],
 * })
 * rebalance.evaluate({ nowMs, prices, positions, cash })
 * // [{ intentId: 'rebalance:core:31337:AAPL:2026-01-05T14:00:00.000Z', side: 'buy', amountIn: '12', amountType: 'stocktoken', ... }]
 */
export function createRebalanceStrategy(
  config: Omit<RebalanceStrategyConfig, 'kind'> & { kind?: 'rebalance' | undefined },
): RebalanceStrategy {
  const parsed = parseStrategyConfig(rebalanceStrategyConfigSchema, { ...config, kind: 'rebalance' })
  const { chainId } = parsed
  const windowMs = parsed.windowMs ?? defaultRebalanceWindowMs
  const threshold = parseUnits(parsed.driftThreshold, fractionDecimals)
  const fxRates: FxRates = {
    usex: parsed.fxRates?.usex === undefined ? defaultFxRates.usex : parsePrice(parsed.fxRates.usex),
    hkex: parsed.fxRates?.hkex === undefined ? defaultFxRates.hkex : parsePrice(parsed.fxRates.hkex),
    krex: parsed.fxRates?.krex === undefined ? defaultFxRates.krex : parsePrice(parsed.fxRates.krex),
  }
  const targets: Target[] = parsed.targets.map((target) => {
    const exchange: ExchangeCode = target.exchange
    const { market, symbol, tokenKind } = instrumentOf({ ticker: target.ticker, exchange })
    return {
      ticker: target.ticker,
      exchange,
      market,
      symbol,
      tokenKind,
      weight: parseUnits(target.weight, fractionDecimals),
      lotSize: target.lotSize === undefined ? marketDefaults[market].lotSize : BigInt(target.lotSize),
      key: priceKey(market, symbol),
    }
  })
  const symbols: MarketSymbol[] = [
    ...new Map(
      targets.map((target) => [target.key, { market: target.market, symbol: target.symbol }]),
    ).values(),
  ]

  const evaluate = (input: StrategyInput): StrategyIntent[] => {
    const cash = input.cash.find((view) => view.chainId === chainId)
    if (cash === undefined || !Number.isFinite(input.nowMs)) return []
    const assetDecimals = cash.assetDecimals
    const cashBalance: bigint = cash.balance > 0n ? cash.balance : 0n
    const holdings: Holding[] = []
    for (const target of targets) {
      const quote = input.prices.get(target.key)
      if (quote === undefined || quote.stale || quote.price <= 0n) return []
      const position = input.positions.find(
        (view) =>
          view.chainId === chainId && view.ticker === target.ticker && view.exchange === target.exchange,
      )
      const tokenKind = position?.tokenKind ?? target.tokenKind
      const balance = position !== undefined && position.balance > 0n ? position.balance : 0n
      const lotSize = position !== undefined && position.lotSize > 0n ? position.lotSize : target.lotSize
      const inAsset = (direction: 'down' | 'up'): AssetAmount =>
        marketPriceInAsset({ price: quote.price, fxRate: fxRates[target.market], assetDecimals, direction })
      const tradePrice = inAsset('up')
      if (tradePrice <= 0n) return []
      const valuePrice = inAsset('down')
      const value = tokenKind === 'share' ? (balance * valuePrice) / shareScale : balance * valuePrice
      holdings.push({ target, tokenKind, balance, lotSize, value, tradePrice })
    }
    const total = holdings.reduce((sum, holding) => sum + holding.value, cashBalance)
    if (total <= 0n) return []

    const windowStart = Math.floor(input.nowMs / windowMs) * windowMs
    const windowIso = new Date(windowStart).toISOString()
    const intent = (holding: Holding, side: 'buy' | 'sell', quantity: bigint): StrategyIntent => ({
      intentId: `rebalance:${parsed.id}:${chainId}:${holding.target.ticker}:${windowIso}`,
      chainId,
      ticker: holding.target.ticker,
      exchange: holding.target.exchange,
      side,
      amountIn: formatTokenShares(holding.tokenKind, quantity),
      amountType: 'stocktoken',
    })

    const sells: StrategyIntent[] = []
    const buys: StrategyIntent[] = []
    let cashLeft = cashBalance
    for (const holding of holdings) {
      // Everything scaled by 1e18: weight fractions times asset amounts, compared exactly.
      const targetScaled = total * holding.target.weight
      const currentScaled = holding.value * fractionScale
      const driftScaled =
        currentScaled > targetScaled ? currentScaled - targetScaled : targetScaled - currentScaled
      if (driftScaled <= threshold * total) continue
      const difference = driftScaled / fractionScale
      const { tradePrice, balance } = holding
      if (currentScaled > targetScaled) {
        const quantity =
          holding.tokenKind === 'share'
            ? min((difference * shareScale) / tradePrice, balance)
            : wholeLots(min(difference / tradePrice, balance), holding.lotSize)
        if (quantity > 0n) sells.push(intent(holding, 'sell', quantity))
      } else if (holding.tokenKind === 'share') {
        const quantity = min((difference * shareScale) / tradePrice, (cashLeft * shareScale) / tradePrice)
        if (quantity > 0n) {
          cashLeft -= divideRounded(quantity * tradePrice, shareScale, 'up')
          buys.push(intent(holding, 'buy', quantity))
        }
      } else {
        const quantity = wholeLots(min(difference / tradePrice, cashLeft / tradePrice), holding.lotSize)
        if (quantity > 0n) {
          cashLeft -= quantity * tradePrice
          buys.push(intent(holding, 'buy', quantity))
        }
      }
    }
    return [...sells, ...buys]
  }

  return {
    id: parsed.id,
    kind: 'rebalance',
    chainId,
    windowMs,
    fxRates,
    marketHours: parsed.marketHours ?? 'any',
    symbols: () => symbols.map((symbol) => ({ ...symbol })),
    evaluate,
  }
}

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b
}

/** `shares` rounded down to whole lots; zero without a known lot size. */
function wholeLots(shares: bigint, lotSize: bigint | null): bigint {
  if (lotSize === null || lotSize <= 0n || shares <= 0n) return 0n
  return (shares / lotSize) * lotSize
}
