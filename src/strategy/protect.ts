import type { ExchangeCode, MarketCode, TokenKind } from '@stockroute/client/domain/markets.js'
import { defaultFxRates, type FxRates } from '@stockroute/client/domain/quotePrice.js'
import { formatTokenShares, parsePrice } from '@stockroute/client/domain/unitStrings.js'
import type { Price } from '@stockroute/client/domain/units.js'
import { parseUnits } from 'viem/utils'
import { type ProtectStrategyConfig, protectStrategyConfigSchema } from './config.js'
import { instrumentOf } from './instrumentOf.js'
import { parseStrategyConfig } from './parseStrategyConfig.js'
import { priceKey } from './priceKey.js'
import type {
  MarketPrice,
  MarketSymbol,
  PositionView,
  ProtectiveExit,
  ProtectiveMemory,
  ProtectiveTrigger,
  StatefulStrategy,
  StrategyDecision,
  StrategyInput,
  StrategyIntent,
  WatchedPosition,
} from './types.js'

/** Percentages are scaled by 1e4 (4 decimals): 100% is 1_000_000. */
const percentDecimals = 4
const hundredPercent = 100n * 10n ** BigInt(percentDecimals)
/** Fractions of a position are scaled by 1e18. */
const fractionDecimals = 18
const fractionScale = 10n ** BigInt(fractionDecimals)
/** Prices and FX rates are scaled by 1e8 each. */
const priceScale = 10n ** 8n

/** A threshold relative to the average cost (percent, scaled by 1e4) or an absolute price. */
type Threshold = { kind: 'pct'; pct: bigint } | { kind: 'price'; price: Price }

/** The parsed exits of a protect strategy. */
export type ProtectiveExits = {
  readonly stopLoss?: Threshold | undefined
  readonly takeProfit?: Threshold | undefined
  /** Percent under the high-water mark, scaled by 1e4. */
  readonly trailingStopPct?: bigint | undefined
  /** The part of the position each exit sells, scaled by 1e18 (1e18: all of it). */
  readonly fraction: bigint
}

/** A protect strategy with its parsed settings. */
export type ProtectStrategy = StatefulStrategy & {
  readonly kind: 'protect'
  readonly exits: ProtectiveExits
  /** The FX rates the percentages of the average cost are computed with. */
  readonly fxRates: FxRates
}

/** The order in which exits that trip on the same price are taken: the first one sells. */
const triggerOrder: readonly ProtectiveTrigger[] = ['stop-loss', 'trailing-stop', 'take-profit']

/**
 * Protective exits of one position (chain, ticker, exchange): a stop-loss (`stopLossPct` under the
 * position's average cost from the ledger, or the price `stopLossPrice`), a take-profit
 * (`takeProfitPct` over the average cost, or `takeProfitPrice`) and a trailing stop
 * (`trailingStopPct` under the highest fresh market price seen since the position opened). Each
 * exit sells `fraction` of the position (default all), as a plain sell intent: whole lots of a
 * StockToken (the lot from the configuration, else the position's), 18-decimal fractions of a
 * ShareToken. A percentage of the average cost compares the market price converted to the chain's
 * asset with `fxRates` (the domain's `marketPriceInAsset`), exactly in bigint.
 *
 * The rules, per evaluation (`decide`, pure):
 * - Only a long position with an epoch (`PositionView.openedSeq`, the ledger sequence number of the
 *   step that opened it) is protected; a flat or missing position forgets its memory.
 * - Only a fresh market price (not `stale`, positive) raises the high-water mark or trips an exit.
 * - An exit trips at most once per epoch: its intent id is `protect:<id>:<trigger>:<epoch>`, and it
 *   is remembered (`ProtectiveExit`, with the quantity fixed when it tripped), so its intent is asked
 *   for again on every later evaluation of the epoch, whatever the price does since: a daemon that
 *   stopped between the trip and the sale still sells, once (the engine executes an id once).
 * - A sale that ended without a trade (failed, expired, rejected: `input.unfilledIntents`) is asked
 *   for again under the next attempt's id (`…:<epoch>:2`, `:3`…), 15 s after the attempt, then 30 s,
 *   doubling to at most 5 minutes: `fraction` of what the position holds then (something else may
 *   have bought or sold meanwhile), the balance it is asked at remembered as the exit's.
 * - One exit at a time: while the balance is still the one an exit tripped at (its sale has not
 *   landed), no other exit trips; of several that trip on one price, the stop-loss goes first, then
 *   the trailing stop, then the take-profit.
 * - A quantity that rounds to zero (less than a lot) trips nothing.
 *
 * Throws {@link StrategyConfigError} at creation for a bad configuration (no exit, both forms of one
 * exit, a stop-loss price not under the take-profit price, a KR ShareToken).
 *
 * @example
 * const protect = createProtectStrategy({ id: 'guard-aapl', chainId: 31337, ticker: 'AAPL', exchange: 0,
 *   stopLossPct: '8', takeProfitPct: '20', trailingStopPct: '5' })
 * const { intents, memory } = protect.decide({ nowMs, prices, positions, cash: [], memory: remembered })
 * // intents: [{ intentId: 'protect:guard-aapl:stop-loss:42', side: 'sell', amountIn: '10', ... }]
 */
export function createProtectStrategy(
  config: Omit<ProtectStrategyConfig, 'kind'> & { kind?: 'protect' | undefined },
): ProtectStrategy {
  const parsed = parseStrategyConfig(protectStrategyConfigSchema, { ...config, kind: 'protect' })
  const exchange: ExchangeCode = parsed.exchange
  const { chainId, ticker } = parsed
  const { market, symbol, tokenKind } = instrumentOf({ ticker, exchange })
  const key = priceKey(market, symbol)
  const fxRates: FxRates = {
    usex: parsed.fxRates?.usex === undefined ? defaultFxRates.usex : parsePrice(parsed.fxRates.usex),
    hkex: parsed.fxRates?.hkex === undefined ? defaultFxRates.hkex : parsePrice(parsed.fxRates.hkex),
    krex: parsed.fxRates?.krex === undefined ? defaultFxRates.krex : parsePrice(parsed.fxRates.krex),
  }
  const percent = (text: string) => parseUnits(text, percentDecimals)
  const threshold = (pct: string | undefined, price: string | undefined): Threshold | undefined =>
    pct !== undefined
      ? { kind: 'pct', pct: percent(pct) }
      : price !== undefined
        ? { kind: 'price', price: parsePrice(price) }
        : undefined
  const exits: ProtectiveExits = {
    stopLoss: threshold(parsed.stopLossPct, parsed.stopLossPrice),
    takeProfit: threshold(parsed.takeProfitPct, parsed.takeProfitPrice),
    trailingStopPct: parsed.trailingStopPct === undefined ? undefined : percent(parsed.trailingStopPct),
    fraction: parseUnits(parsed.fraction ?? '1', fractionDecimals),
  }
  const configuredLot = parsed.lotSize === undefined ? undefined : BigInt(parsed.lotSize)
  const watched: WatchedPosition = { chainId, ticker, exchange }
  const instrument: Instrument = { id: parsed.id, watched, market, tokenKind, configuredLot, fxRates }

  const decide = (input: StrategyInput): StrategyDecision => {
    const position = input.positions.find(
      (view) => view.chainId === chainId && view.ticker === ticker && view.exchange === exchange,
    )
    if (position === undefined || position.balance <= 0n || position.openedSeq === undefined)
      return { intents: [], memory: { protective: [] } }
    const epoch = position.openedSeq
    const remembered = input.memory?.protective.find(
      (entry) => entry.chainId === chainId && entry.ticker === ticker && entry.epoch === epoch,
    )
    const quote = input.prices.get(key)
    const fresh = quote !== undefined && !quote.stale && quote.price > 0n ? quote : undefined
    const highWater =
      fresh !== undefined && (remembered?.highWater === undefined || fresh.price > remembered.highWater.price)
        ? { price: fresh.price, atMs: fresh.atMs }
        : remembered?.highWater
    const fired: ProtectiveExit[] = (remembered?.exits ?? []).map((exit) =>
      retriedExit(
        exit,
        parsed.id,
        epoch,
        sellQuantity(instrument, position, exits.fraction),
        position,
        input,
      ),
    )
    const pending = fired.some((exit) => exit.balance === position.balance)
    if (fresh !== undefined && !pending) {
      const trigger = trippedExit(exits, instrument, position, fresh, highWater?.price, fired)
      const quantity = trigger === undefined ? 0n : sellQuantity(instrument, position, exits.fraction)
      if (trigger !== undefined && quantity > 0n)
        fired.push({
          trigger,
          intentId: exitIntentId(parsed.id, trigger, epoch),
          price: fresh.price,
          quantity,
          balance: position.balance,
          atMs: input.nowMs,
        })
    }
    const memory: ProtectiveMemory = {
      chainId,
      ticker,
      epoch,
      ...(highWater === undefined ? {} : { highWater }),
      exits: fired,
    }
    const intents = fired.flatMap((exit) => {
      const quantity = min(exit.quantity, sellable(instrument, position))
      return quantity > 0n ? [sellIntent(instrument, exit.intentId, quantity)] : []
    })
    return { intents, memory: { protective: [memory] } }
  }

  return {
    id: parsed.id,
    kind: 'protect',
    marketHours: parsed.marketHours ?? 'any',
    exits,
    fxRates,
    watches: [watched],
    symbols: (): MarketSymbol[] => [{ market, symbol }],
    decide,
    evaluate: (input) => decide(input).intents,
  }
}

type Instrument = {
  id: string
  watched: WatchedPosition
  market: MarketCode
  tokenKind: TokenKind
  configuredLot: bigint | undefined
  fxRates: FxRates
}

/** The intent id of an exit's first attempt; later attempts add `:<attempt>`. */
function exitIntentId(strategyId: string, trigger: ProtectiveTrigger, epoch: number): string {
  return `protect:${strategyId}:${trigger}:${epoch}`
}

/** How long after an attempt that ended without a trade the sale is asked for again: 15 s, doubling, at most 5 minutes. */
function exitRetryDelayMs(attempt: number): number {
  return Math.min(15_000 * 2 ** (attempt - 1), 300_000)
}

/** Which attempt an exit's sale is at, and when the next may be asked for if this one ends without a trade. */
export type ExitAttempt = { attempt: number; retryAtMs: number }

/**
 * The attempt of a remembered exit of `strategyId` in the position's `epoch`: 1 under the exit's
 * first intent id, `n` under `…:<n>`; undefined for an intent id that is not one of its attempts.
 *
 * @example
 * exitAttemptOf('guard-aapl', 42, { trigger: 'stop-loss', intentId: 'protect:guard-aapl:stop-loss:42:2', atMs: 1_000 })
 * // { attempt: 2, retryAtMs: 31_000 }
 */
export function exitAttemptOf(
  strategyId: string,
  epoch: number,
  exit: Pick<ProtectiveExit, 'trigger' | 'intentId' | 'atMs'>,
): ExitAttempt | undefined {
  const firstId = exitIntentId(strategyId, exit.trigger, epoch)
  const attempt =
    exit.intentId === firstId
      ? 1
      : exit.intentId.startsWith(`${firstId}:`)
        ? Number(exit.intentId.slice(firstId.length + 1))
        : Number.NaN
  if (!Number.isSafeInteger(attempt) || attempt < 1) return undefined
  return { attempt, retryAtMs: exit.atMs + exitRetryDelayMs(attempt) }
}

/**
 * The exit under its next attempt's id when its sale ended without a trade (failed, expired,
 * rejected: `input.unfilledIntents`) and the attempt's delay ({@link exitRetryDelayMs}) has passed,
 * selling `quantity` (the exit's fraction of the position now) at the position's balance now; else
 * the exit as it was. Asked for whatever the balance did since the trip: another strategy's buy or
 * an operator's sale must not leave the position unprotected for the rest of its epoch. A
 * protective exit never gives up: a position it fired for stays to be sold until it is (or until
 * less than a lot is left).
 */
function retriedExit(
  exit: ProtectiveExit,
  strategyId: string,
  epoch: number,
  quantity: bigint,
  position: PositionView,
  input: StrategyInput,
): ProtectiveExit {
  if (input.unfilledIntents?.has(exit.intentId) !== true || quantity <= 0n) return exit
  const current = exitAttemptOf(strategyId, epoch, exit)
  if (current === undefined || input.nowMs < current.retryAtMs) return exit
  const firstId = exitIntentId(strategyId, exit.trigger, epoch)
  return {
    ...exit,
    intentId: `${firstId}:${current.attempt + 1}`,
    atMs: input.nowMs,
    quantity,
    balance: position.balance,
  }
}

/** The first exit (in {@link triggerOrder}) that the fresh price trips and that has not fired in this epoch. */
function trippedExit(
  exits: ProtectiveExits,
  instrument: Instrument,
  position: PositionView,
  quote: MarketPrice,
  highWater: Price | undefined,
  fired: readonly ProtectiveExit[],
): ProtectiveTrigger | undefined {
  const price = quote.price
  const tripped: Record<ProtectiveTrigger, boolean> = {
    'stop-loss': exits.stopLoss !== undefined && crosses(exits.stopLoss, 'down', price, position, instrument),
    'take-profit':
      exits.takeProfit !== undefined && crosses(exits.takeProfit, 'up', price, position, instrument),
    'trailing-stop':
      exits.trailingStopPct !== undefined &&
      highWater !== undefined &&
      price * hundredPercent <= highWater * (hundredPercent - exits.trailingStopPct),
  }
  return triggerOrder.find((trigger) => tripped[trigger] && !fired.some((exit) => exit.trigger === trigger))
}

/**
 * Whether `price` (market currency, 1e8) is at or under (`down`) or at or over (`up`) the threshold:
 * an absolute price, or a percentage under or over the position's average cost. The comparison with
 * the average cost is in the chain's asset, exact: price × fx × 10^decimals × 100% against
 * cost × (100% ∓ pct) × 1e16. Without a known average cost a percentage never trips.
 */
function crosses(
  threshold: Threshold,
  direction: 'down' | 'up',
  price: Price,
  position: PositionView,
  instrument: Instrument,
): boolean {
  if (threshold.kind === 'price')
    return direction === 'down' ? price <= threshold.price : price >= threshold.price
  const cost = position.averageCost
  const decimals = position.assetDecimals
  if (cost === undefined || cost <= 0n || decimals === undefined) return false
  const fx = instrument.fxRates[instrument.market]
  if (fx <= 0n) return false
  const left = price * fx * 10n ** BigInt(decimals) * hundredPercent
  if (direction === 'down') {
    if (threshold.pct >= hundredPercent) return false
    return left <= cost * (hundredPercent - threshold.pct) * priceScale * priceScale
  }
  return left >= cost * (hundredPercent + threshold.pct) * priceScale * priceScale
}

/** The board lot sells are rounded to: the configured one, else the position's, else 1. */
function lotOf(instrument: Instrument, position: PositionView): bigint {
  if (instrument.configuredLot !== undefined) return instrument.configuredLot
  return position.lotSize > 0n ? position.lotSize : 1n
}

/** What of the position can be sold now: whole lots of a StockToken, all of a ShareToken. */
function sellable(instrument: Instrument, position: PositionView): bigint {
  if (position.balance <= 0n) return 0n
  if (instrument.tokenKind === 'share') return position.balance
  const lot = lotOf(instrument, position)
  return (position.balance / lot) * lot
}

/** `fraction` of the balance, rounded down (to whole lots of a StockToken). */
function sellQuantity(instrument: Instrument, position: PositionView, fraction: bigint): bigint {
  const share = fraction >= fractionScale ? position.balance : (position.balance * fraction) / fractionScale
  if (instrument.tokenKind === 'share') return share
  const lot = lotOf(instrument, position)
  return (share / lot) * lot
}

function sellIntent(instrument: Instrument, intentId: string, quantity: bigint): StrategyIntent {
  const { watched, tokenKind } = instrument
  return {
    intentId,
    chainId: watched.chainId,
    ticker: watched.ticker,
    exchange: watched.exchange,
    side: 'sell',
    amountIn: formatTokenShares(tokenKind, quantity),
    amountType: 'stocktoken',
  }
}

function min(a: bigint, b: bigint): bigint {
  return a < b ? a : b
}
