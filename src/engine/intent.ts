import { DomainRuleError } from '@stockroute/client/domain/domainRuleError.js'
import { type ExchangeCode, isExchangeCode, marketCodes } from '@stockroute/client/domain/markets.js'
import { assertOrderQuantity } from '@stockroute/client/domain/quantityRules.js'
import { assertOnTick } from '@stockroute/client/domain/tickRules.js'
import {
  parseAssetAmount,
  parsePrice,
  parseShareQuantity,
  parseStockQuantity,
} from '@stockroute/client/domain/unitStrings.js'
import type { AssetAmount, Price } from '@stockroute/client/domain/units.js'
import { z } from 'zod'
import { EngineError } from './errors.js'
import type { Instrument } from './types.js'

/**
 * One trade to make, as a strategy, the CLI or the swap API asks for it. `intentId` makes it
 * idempotent: an intent is executed at most once, whatever happens.
 */
export type SwapIntent = {
  /** Unique per trade, chosen by the caller (e.g. `dca-AAPL-2026-11-22`); at most once per intent. */
  intentId: string
  chainId: number
  /** StockToken ticker, or ShareToken ticker with the `s` suffix. */
  ticker: string
  exchange: ExchangeCode
  side: 'buy' | 'sell'
  /**
   * Natural units, as for `stockroute quote`: the asset to spend on a stablecoin buy, else the
   * share quantity.
   */
  amountIn: string
  /** Buys only: `stablecoin` (default) or `stocktoken`. A sell is always `stocktoken`. */
  amountType?: 'stablecoin' | 'stocktoken' | undefined
  /**
   * Worst acceptable price per share in the market's currency (USD, HKD, KRW): a buy pays at most
   * this, a sell receives at least this. HK and KR limits must be on the tick grid.
   */
  limitPrice?: Price | undefined
  /** The strategy that made this intent (the daemon's runner sets it); listed and filtered on. */
  strategy?: string | undefined
}

/** The intent's schema for inputs that arrive as JSON (swap API, files); limitPrice as decimal text. */
export const swapIntentSchema = z
  .object({
    intentId: z.string().min(1, 'must not be empty').max(200, 'is longer than 200 characters'),
    chainId: z.number().int().positive(),
    ticker: z.string().min(1).max(32),
    exchange: z.number().int().refine(isExchangeCode, 'must be 0 (US), 1 (HK) or 3 (KR)'),
    side: z.enum(['buy', 'sell']),
    amountIn: z
      .string()
      .regex(/^\d+(\.\d+)?$/, 'must be a plain decimal in natural units, e.g. "1000" or "0.5"'),
    amountType: z.enum(['stablecoin', 'stocktoken']).optional(),
    limitPrice: z
      .string()
      .regex(/^\d+(\.\d+)?$/, 'must be a plain decimal price, e.g. "418.6"')
      .transform((text) => parsePrice(text))
      .optional(),
  })
  .transform((intent) => intent as SwapIntent)

/** An intent with its amount type settled and its amount in base units of the token it counts. */
export type CheckedIntent = Omit<SwapIntent, 'amountType' | 'limitPrice'> & {
  amountType: 'stablecoin' | 'stocktoken'
  limitPrice: Price | undefined
  /** `amountIn` in base units: asset (stablecoin buy) or the token's (stocktoken buy, sell). */
  amountInBaseUnits: bigint
}

/**
 * Settles the amount type, parses the amount in the unit it counts, and applies the market rules
 * that need no quote: lot multiples and whole KR shares for quantities, the tick grid for a limit.
 * Throws {@link EngineError} `INVALID_INTENT` saying what to change.
 *
 * @example
 * checkIntent({ intentId: 'a', chainId: 31337, ticker: '0700', exchange: 1, side: 'sell', amountIn: '150' }, instrument, 6)
 * // throws: Quantity 150 is not a multiple of the lot size 100: use 100 or 200 shares.
 */
export function checkIntent(
  intent: SwapIntent,
  instrument: Instrument,
  assetDecimals: number,
): CheckedIntent {
  const fail = (problem: string, cause?: unknown) =>
    new EngineError({
      code: 'INVALID_INTENT',
      shortMessage: `Intent ${JSON.stringify(intent.intentId)}: ${problem}`,
      details: { intentId: intent.intentId },
      cause,
    })
  if (intent.side === 'sell' && intent.amountType === 'stablecoin')
    throw fail("amountType stablecoin applies to buys only: a sell's amount is a share quantity.")
  const amountType = intent.side === 'buy' ? (intent.amountType ?? 'stablecoin') : 'stocktoken'
  const market = marketCodes[intent.exchange]
  let amountInBaseUnits: AssetAmount | bigint
  try {
    if (market === 'krex' && instrument.tokenKind === 'share')
      throw fail(
        `${intent.ticker} is a ShareToken, but South Korea stocks trade in whole shares only: trade the StockToken.`,
      )
    if (amountType === 'stablecoin') amountInBaseUnits = parseAssetAmount(intent.amountIn, assetDecimals)
    else if (instrument.tokenKind === 'stock') {
      const quantity = parseStockQuantity(intent.amountIn)
      assertOrderQuantity({ market, lotSize: instrument.lotSize, token: 'stock', quantity })
      amountInBaseUnits = quantity
    } else {
      const quantity = parseShareQuantity(intent.amountIn)
      assertOrderQuantity({ market, token: 'share', quantity })
      amountInBaseUnits = quantity
    }
    if (amountInBaseUnits <= 0n) throw fail('amountIn is zero: trade a positive amount.')
    if (intent.limitPrice !== undefined)
      assertOnTick({ market, spreadTableCode: instrument.spreadTableCode, price: intent.limitPrice })
  } catch (error) {
    if (error instanceof DomainRuleError) throw fail(error.shortMessage, error)
    throw error
  }
  return {
    intentId: intent.intentId,
    chainId: intent.chainId,
    ticker: intent.ticker,
    exchange: intent.exchange,
    side: intent.side,
    amountIn: intent.amountIn,
    amountType,
    limitPrice: intent.limitPrice,
    strategy: intent.strategy,
    amountInBaseUnits,
  }
}
