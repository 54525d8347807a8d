import { formatAssetAmount, formatStockQuantity } from '@stockroute/client/domain/formatTokenAmount.js'
import { marketCurrencies } from '@stockroute/client/domain/marketRules.js'
import type { MarketCode, TokenKind } from '@stockroute/client/domain/markets.js'
import { formatPrice } from '@stockroute/client/domain/unitStrings.js'
import type { Price } from '@stockroute/client/domain/units.js'

// The guard's price and approval messages, in the units a person reads: asset amounts with the
// asset's symbol and decimals, quantities with the ticker, limits in the market's currency. The
// exact base units stay in the verdict's `details`.

/** The asset of a quote as messages name it. */
export type MessageAsset = { symbol: string; decimals: number }

/**
 * An approval asking for more than the quote needs.
 *
 * @example
 * approvalTooLargeMessage({ index: 0, amount: 2_000_000n, needed: 1_000_000n, unit: { kind: 'asset', asset } })
 * // 'approval 0 asks for 2 USDC, more than the 1 USDC the quote needs'
 */
export function approvalTooLargeMessage(parameters: {
  index: number
  amount: bigint
  needed: bigint
  unit:
    | { kind: 'asset'; asset: MessageAsset }
    | { kind: 'stock'; token: { tokenKind: TokenKind; ticker: string } }
}): string {
  const { unit } = parameters
  const show = (value: bigint) =>
    unit.kind === 'asset' ? formatAssetAmount(value, unit.asset) : formatStockQuantity(value, unit.token)
  return `approval ${parameters.index} asks for ${show(parameters.amount)}, more than the ${show(parameters.needed)} the quote needs`
}

/**
 * A quote's effective price beyond the intent's limit (the limit given in the market's currency).
 *
 * @example
 * limitPriceMessage({ isBuy: true, effectivePrice: 228_087_860n, limit: 1_000_000n, limitPrice, market: 'usex', asset })
 * // 'the quote pays 228.08786 USDC per share, above the limit of 1 USDC (1 USD)'
 */
export function limitPriceMessage(parameters: {
  isBuy: boolean
  effectivePrice: bigint
  /** The limit converted to asset base units per share. */
  limit: bigint
  limitPrice: Price
  market: MarketCode
  asset: MessageAsset
}): string {
  const { isBuy, asset } = parameters
  return `the quote ${isBuy ? 'pays' : 'fetches'} ${formatAssetAmount(parameters.effectivePrice, asset)} per share${isBuy ? ' (fee included)' : ' (net of fee)'}, ${isBuy ? 'above' : 'below'} the limit of ${formatAssetAmount(parameters.limit, asset)} (${formatPrice(parameters.limitPrice)} ${marketCurrencies[parameters.market]})`
}

/**
 * A quote's effective price too far from the market price.
 *
 * @example
 * priceDeviationMessage({ effectivePrice: 228_087_860n, marketPrice: 221_000_000n, marketPriceInCurrency, market: 'usex', deviationBps: 321n, maxBps: 300, asset })
 * // "the quote's effective price 228.08786 USDC per share is 321 bps from the market price 221 USDC (221 USD), more than the 300 bps allowed"
 */
export function priceDeviationMessage(parameters: {
  effectivePrice: bigint
  /** The market price converted to asset base units per share. */
  marketPrice: bigint
  /** The market price as quoted, in the market's currency. */
  marketPriceInCurrency: Price
  market: MarketCode
  deviationBps: bigint
  maxBps: number
  asset: MessageAsset
}): string {
  const { asset } = parameters
  return `the quote's effective price ${formatAssetAmount(parameters.effectivePrice, asset)} per share is ${parameters.deviationBps} bps from the market price ${formatAssetAmount(parameters.marketPrice, asset)} (${formatPrice(parameters.marketPriceInCurrency)} ${marketCurrencies[parameters.market]}), more than the ${parameters.maxBps} bps allowed`
}
