// Amounts as a person reads them, by the rule of the CLI and the reports: exact up to 6 decimals,
// else rounded half away from zero to 6 fraction digits, never 0 for a non-zero amount. The rule is
// not copied here: the daemon serves the client's own build of it (vendor/displayAmount.js). The
// API's JSON keeps the exact values; only what the page shows is rounded.

import { formatDecimalForDisplay, formatTokenAmount } from './vendor/displayAmount.js'

/** Decimals of a stock-side quantity by token kind (the client's `tokenKinds`, domain/markets.ts). */
const stockDecimals = { stock: 0, share: 18 }

/**
 * A decimal string in natural units, as the API writes amounts, rounded for display; anything else
 * (null, a dash, a text) as it is.
 * @example amountText('39.978310249750249751') // '39.97831'
 */
export function amountText(value) {
  if (typeof value !== 'string') return value ?? '–'
  try {
    return formatDecimalForDisplay(value)
  } catch {
    return value
  }
}

/**
 * An integer of base units (a decimal string) in natural units, rounded for display.
 * @example baseUnitsText('1000000000', 6) // '1000'
 */
export function baseUnitsText(value, decimals) {
  return formatTokenAmount(BigInt(value), decimals)
}

/**
 * A fill's stock-side quantity in its token's units (StockToken: whole shares; ShareToken: 18
 * decimals).
 * @example stockQuantityText({ stockAmount: '4', tokenKind: 'stock' }) // '4'
 */
export function stockQuantityText(fill) {
  const decimals = stockDecimals[fill.tokenKind]
  return decimals === undefined
    ? `${fill.stockAmount} (base units)`
    : baseUnitsText(fill.stockAmount, decimals)
}
