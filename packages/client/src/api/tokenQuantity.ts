import type { TokenKind } from '../domain/markets.js'
import {
  type ShareQuantity,
  type StockQuantity,
  shareDecimals,
  stockDecimals,
  toShareQuantity,
  toStockQuantity,
} from '../domain/units.js'

// Replies that carry a token quantity (router quote, orders, positions) do not say which kind of
// token it is. The reference names the kind by the ticker: a ShareToken's ticker is its stock's
// ticker with a lowercase `s` suffix; stock tickers (US letters, HK and KR digits) never end with
// one. The actions derive the kind from the ticker with this rule and type the quantities with it.

/** The quantity type of a token kind: whole shares for a StockToken, 1e18 units for a ShareToken. */
export type QuantityOf<Kind extends TokenKind> = Kind extends 'stock' ? StockQuantity : ShareQuantity

/**
 * The kind of token a ticker names: `share` when it ends with a lowercase `s` (AAPLs), else `stock`
 * (AAPL, 0700, 005930). The rule of the reference; a listing renamed to a lowercase ticker ending in
 * `s` would be misread, so actions that can take the kind from the caller let it override this.
 *
 * @example
 * tokenKindOfTicker('AAPLs') // 'share'
 * tokenKindOfTicker('0700') // 'stock'
 */
export function tokenKindOfTicker(ticker: string): TokenKind {
  return ticker.endsWith('s') ? 'share' : 'stock'
}

/**
 * Decimals of a token kind: 0 for a StockToken, 18 for a ShareToken.
 *
 * @example
 * decimalsOfTokenKind('share') // 18
 */
export function decimalsOfTokenKind(kind: TokenKind): number {
  return kind === 'stock' ? stockDecimals : shareDecimals
}

/**
 * Brands token base units as the quantity type of `kind`.
 *
 * @example
 * toQuantity('stock', 100n) // 100n as StockQuantity
 */
export function toQuantity<Kind extends TokenKind>(kind: Kind, value: bigint): QuantityOf<Kind> {
  return (kind === 'stock' ? toStockQuantity(value) : toShareQuantity(value)) as QuantityOf<Kind>
}
