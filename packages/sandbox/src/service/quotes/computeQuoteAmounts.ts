import { DomainRuleError } from '@stockroute/client/domain/domainRuleError.js'
import type { MarketCode, TokenKind } from '@stockroute/client/domain/markets.js'
import { assertLotMultiple, assertOrderQuantity } from '@stockroute/client/domain/quantityRules.js'
import {
  assetAmountForShares,
  assetAmountForStock,
  divideRounded,
} from '@stockroute/client/domain/unitConversions.js'
import {
  formatAssetAmount,
  parseAssetAmount,
  parseShareQuantity,
  parseStockQuantity,
} from '@stockroute/client/domain/unitStrings.js'
import type { AssetAmount, ShareQuantity, StockQuantity } from '@stockroute/client/domain/units.js'
import { quoteFee, quoteFeeBasisPoints } from './quotePricing.js'

export type QuoteAmountRequest = {
  market: MarketCode
  tokenKind: TokenKind
  lotSize: bigint
  isBuy: boolean
  amountType: 'stablecoin' | 'stocktoken'
  /** The request's amount_in, natural units. */
  amountIn: string
  assetDecimals: number
  /** Asset base units per whole share, already rounded in the house's favour for this side. */
  pricePerShare: AssetAmount
}

/**
 * The amounts of a router quote, all in base units. `amountInUsed` is what `execute` takes from the
 * taker (the asset, fee included, on a buy; the stock on a sell) and is the signed `amountIn`.
 */
export type QuoteAmounts = {
  /** The request's input in its token's decimals (asset for stablecoin-in, stock otherwise). */
  amountIn: bigint
  amountInUsed: bigint
  /** Stock delivered on a buy; asset received, net of the fee, on a sell. */
  amountOut: bigint
  feeAmount: AssetAmount
}

/**
 * Applies the router quote's amount rules: natural-unit input, HK whole lots (stablecoin-in rounds
 * down and does not charge the rest; stocktoken-in and sells must be lot multiples), KR whole
 * shares, fee included in what a buyer pays. Throws DomainRuleError with a fix in its message.
 *
 * @example
 * computeQuoteAmounts({ market: 'hkex', tokenKind: 'stock', lotSize: 100n, isBuy: true,
 *   amountType: 'stablecoin', amountIn: '12000', assetDecimals: 6, pricePerShare: 53790100n as AssetAmount })
 */
export function computeQuoteAmounts(request: QuoteAmountRequest): QuoteAmounts {
  if (request.isBuy && request.amountType === 'stablecoin') return stablecoinInBuy(request)
  const quantity = parseQuantity(request)
  const gross = grossFor(request, quantity)
  const feeAmount = quoteFee(gross)
  if (request.isBuy) {
    return { amountIn: quantity, amountInUsed: gross + feeAmount, amountOut: quantity, feeAmount }
  }
  if (gross <= feeAmount) {
    throw new DomainRuleError({
      code: 'ROUNDS_TO_ZERO',
      shortMessage: 'the sale is worth no more than its fee: sell a larger quantity',
      details: { gross: gross.toString(), fee: feeAmount.toString() },
    })
  }
  return { amountIn: quantity, amountInUsed: quantity, amountOut: gross - feeAmount, feeAmount }
}

function stablecoinInBuy(request: QuoteAmountRequest): QuoteAmounts {
  const offered = parseAssetAmount(request.amountIn, request.assetDecimals)
  // The fee comes out of the offered amount: spend at most offered / (1 + fee) on the shares.
  const budget = divideRounded(offered * 10_000n, 10_000n + quoteFeeBasisPoints, 'down') as AssetAmount
  if (request.tokenKind === 'share') {
    const quantity = divideRounded(budget * 10n ** 18n, request.pricePerShare, 'down') as ShareQuantity
    if (quantity === 0n) throw belowOne(request, offered, 'buys no fraction of a share')
    return chargeWithin(
      offered,
      quantity,
      assetAmountForShares({ quantity, pricePerShareInAsset: request.pricePerShare, direction: 'up' }),
    )
  }
  // gross <= offered / (1 + fee rate) implies gross + ceil(fee) <= offered: the offer is never exceeded.
  const lotCost = request.pricePerShare * request.lotSize
  const lots = budget / lotCost
  if (lots === 0n) {
    const lotWithFee = (lotCost + quoteFee(lotCost as AssetAmount)) as AssetAmount
    throw belowOne(
      request,
      offered,
      `does not cover one lot of ${request.lotSize} shares (${formatAssetAmount(lotWithFee, request.assetDecimals)} with the fee)`,
    )
  }
  const quantity = (lots * request.lotSize) as StockQuantity
  return chargeWithin(
    offered,
    quantity,
    assetAmountForStock({ quantity, pricePerShareInAsset: request.pricePerShare }),
  )
}

function chargeWithin(offered: AssetAmount, quantity: bigint, gross: AssetAmount): QuoteAmounts {
  const feeAmount = quoteFee(gross)
  return { amountIn: offered, amountInUsed: gross + feeAmount, amountOut: quantity, feeAmount }
}

function parseQuantity(request: QuoteAmountRequest): bigint {
  if (request.tokenKind === 'share') {
    const quantity = parseShareQuantity(request.amountIn)
    assertOrderQuantity({ market: request.market, token: 'share', quantity })
    return quantity
  }
  const quantity = parseStockQuantity(request.amountIn)
  assertLotMultiple({ quantity, lotSize: request.lotSize })
  return quantity
}

function grossFor(request: QuoteAmountRequest, quantity: bigint): AssetAmount {
  const direction = request.isBuy ? 'up' : 'down'
  if (request.tokenKind === 'share') {
    return assetAmountForShares({
      quantity: quantity as ShareQuantity,
      pricePerShareInAsset: request.pricePerShare,
      direction,
    })
  }
  return assetAmountForStock({
    quantity: quantity as StockQuantity,
    pricePerShareInAsset: request.pricePerShare,
  })
}

function belowOne(request: QuoteAmountRequest, offered: AssetAmount, what: string) {
  return new DomainRuleError({
    code: 'BELOW_ONE_LOT',
    shortMessage: `${formatAssetAmount(offered, request.assetDecimals)} ${what}: offer a larger amount`,
    details: { amountIn: request.amountIn, lotSize: request.lotSize.toString() },
  })
}
