import { formatTokenAmount } from './displayAmount.js'
import { type TokenKind, tokenKinds } from './markets.js'

// How an amount in base units reads for a person, with its unit: the rule itself (exact up to 6
// decimals, else rounded half away from zero to 6 fraction digits, never "0" for a non-zero amount,
// trailing zeros trimmed) is in ./displayAmount.ts, an import-free module the dashboard loads too;
// it is re-exported here so importers of this module keep working.

export { formatDecimalForDisplay, formatTokenAmount, keptFractionDigits } from './displayAmount.js'

/**
 * An asset amount with its symbol.
 *
 * @example
 * formatAssetAmount(912_631_720n, { symbol: 'USDC', decimals: 6 }) // '912.63172 USDC'
 */
export function formatAssetAmount(value: bigint, asset: { symbol: string; decimals: number }): string {
  return `${formatTokenAmount(value, asset.decimals)} ${asset.symbol}`
}

/**
 * A stock-side quantity (StockToken: whole shares; ShareToken: 18 decimals) with its ticker.
 *
 * @example
 * formatStockQuantity(500_000_000_000_000_000n, { tokenKind: 'share', ticker: 'AAPLs' }) // '0.5 AAPLs'
 */
export function formatStockQuantity(value: bigint, token: { tokenKind: TokenKind; ticker: string }): string {
  return `${formatTokenAmount(value, tokenKinds[token.tokenKind].decimals)} ${token.ticker}`
}
