import { slippageVsMarketCentiBps, slippageVsQuoteCentiBps } from '@stockroute/client/domain/fillSlippage.js'
import { isExchangeCode, marketCodes } from '@stockroute/client/domain/markets.js'
import { defaultFxRates } from '@stockroute/client/domain/quotePrice.js'

// A fill's slippage against its quote and against the market price its execution read, computed
// once when the fill is recorded (and by migration 7 for fills recorded before), so that reports
// average them in SQL instead of re-reading every quote.

/** The columns of an execution that price its fills. */
export type ExecutionPricingRow = {
  quote_json: string | null
  market_price: string | null
  /** The FX rate the engine converted the market price with; null before migration 7. */
  market_fx_rate: string | null
}

/** The columns of a fill its slippage needs. */
export type FillPricingRow = {
  quote_id: string
  exchange: number
  token_kind: 'stock' | 'share'
  asset_decimals: number
  is_buy: number
  amount_in: string
  amount_out: string
}

/**
 * Slippage in hundredths of a basis point (positive: worse), null where there is no reference:
 * against the quote when the execution still holds the quote this fill settled, against the
 * market price when the execution recorded one. Executions recorded before their FX rate was
 * stored are converted at the sandbox's default rates.
 *
 * @example
 * fillSlippageOf(fillRow, executionRow) // { quote: 0, market: 1250 }
 */
export function fillSlippageOf(
  fill: FillPricingRow,
  execution: ExecutionPricingRow | undefined,
): { quote: number | null; market: number | null } {
  if (!execution) return { quote: null, market: null }
  const isBuy = fill.is_buy === 1
  const stockAmount = BigInt(isBuy ? fill.amount_out : fill.amount_in)
  let quote: number | null = null
  const quotedOut = quotedAmountOut(execution.quote_json, fill.quote_id)
  if (quotedOut !== undefined && quotedOut > 0n)
    quote = Number(slippageVsQuoteCentiBps({ filledOut: BigInt(fill.amount_out), quotedOut }))
  let market: number | null = null
  const marketPrice = execution.market_price === null ? 0n : BigInt(execution.market_price)
  const fxRate =
    execution.market_fx_rate !== null
      ? BigInt(execution.market_fx_rate)
      : isExchangeCode(fill.exchange)
        ? defaultFxRates[marketCodes[fill.exchange]]
        : 0n
  if (marketPrice > 0n && fxRate > 0n && stockAmount > 0n)
    market = Number(
      slippageVsMarketCentiBps(
        {
          isBuy,
          tokenKind: fill.token_kind,
          assetDecimals: fill.asset_decimals,
          assetAmount: BigInt(isBuy ? fill.amount_in : fill.amount_out),
          stockAmount,
        },
        marketPrice,
        fxRate,
      ),
    )
  return { quote, market }
}

/** The amount out the stored quote promised, when it is the quote `quoteId` (the fill settled it). */
function quotedAmountOut(quoteJson: string | null, quoteId: string): bigint | undefined {
  if (quoteJson === null) return undefined
  const quote = JSON.parse(quoteJson) as { quoteId?: unknown; amountOut?: unknown }
  if (typeof quote.quoteId !== 'string' || quote.quoteId.toLowerCase() !== quoteId.toLowerCase())
    return undefined
  return typeof quote.amountOut === 'string' && /^\d+$/.test(quote.amountOut)
    ? BigInt(quote.amountOut)
    : undefined
}
