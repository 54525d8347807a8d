import { formatAssetAmount, formatStockQuantity } from '@stockroute/client/domain/formatTokenAmount.js'
import type { TokenKind } from '@stockroute/client/domain/markets.js'

/**
 * An amount of the token a trade gives (the asset on a buy, the stock token on a sell) as a person
 * reads it: what approvals and allowances of the trade are counted in.
 *
 * @example
 * givenAmountText({ symbol: 'USDC', decimals: 6 }, { isBuy: true, tokenKind: 'stock', ticker: 'AAPL' }, 912_631_720n) // '912.63172 USDC'
 * givenAmountText(asset, { isBuy: false, tokenKind: 'share', ticker: 'AAPLs' }, 5n * 10n ** 17n) // '0.5 AAPLs'
 */
export function givenAmountText(
  asset: { symbol: string; decimals: number },
  quote: { isBuy: boolean; tokenKind: TokenKind; ticker: string },
  amount: bigint,
): string {
  return quote.isBuy ? formatAssetAmount(amount, asset) : formatStockQuantity(amount, quote)
}
