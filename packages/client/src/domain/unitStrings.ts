import { DomainRuleError } from './domainRuleError.js'
import type { TokenKind } from './markets.js'
import {
  type AssetAmount,
  assetDecimalsOf,
  type Price,
  priceDecimals,
  type ShareQuantity,
  type StockQuantity,
  shareDecimals,
  stockDecimals,
} from './units.js'

// Parsing and formatting of units as decimal strings (the edges). Plain bigint and string work, no
// viem: a command line parses `--limit-price` without loading it.

/**
 * Parses a whole-share count such as `"100"` (`"100.0"` is accepted: it is whole). Throws
 * `FRACTIONAL_SHARES` for a fraction, `BAD_DECIMAL` for anything that is not a plain decimal.
 *
 * @example
 * parseStockQuantity('200') // 200n
 */
export function parseStockQuantity(text: string): StockQuantity {
  return parseDecimal(text, stockDecimals, 'Stock quantity') as StockQuantity
}

/**
 * Formats a {@link StockQuantity} as a decimal string.
 *
 * @example
 * formatStockQuantity(toStockQuantity(200n)) // '200'
 */
export function formatStockQuantity(quantity: StockQuantity): string {
  return formatDecimal(quantity, stockDecimals)
}

/**
 * Parses a share count in natural units (`"0.5"`) into 18-decimal ShareToken units. Throws
 * `BAD_DECIMAL` for bad syntax or more than 18 significant decimal places.
 *
 * @example
 * parseShareQuantity('0.5') // 500000000000000000n
 */
export function parseShareQuantity(text: string): ShareQuantity {
  return parseDecimal(text, shareDecimals, 'Share quantity') as ShareQuantity
}

/**
 * Formats a {@link ShareQuantity} in natural units.
 *
 * @example
 * formatShareQuantity(toShareQuantity(500_000_000_000_000_000n)) // '0.5'
 */
export function formatShareQuantity(quantity: ShareQuantity): string {
  return formatDecimal(quantity, shareDecimals)
}

/**
 * Formats a token balance or quantity in base units as shares: whole shares of a StockToken
 * (0 decimals), fractions of a ShareToken (18).
 *
 * @example
 * formatTokenShares('share', 500_000_000_000_000_000n) // '0.5'
 * formatTokenShares('stock', 200n) // '200'
 */
export function formatTokenShares(tokenKind: TokenKind, baseUnits: bigint): string {
  return formatDecimal(baseUnits, tokenKind === 'share' ? shareDecimals : stockDecimals)
}

/**
 * Parses an asset amount in natural units (`"12.5"`) into base units of an asset with `decimals`
 * decimals. Throws `BAD_DECIMAL` for bad syntax or more decimal places than the asset has,
 * `BAD_DECIMALS` for invalid decimals.
 *
 * @example
 * parseAssetAmount('12.5', 6) // 12500000n
 */
export function parseAssetAmount(text: string, decimals: number): AssetAmount {
  return parseDecimal(text, assetDecimalsOf(decimals), 'Asset amount') as AssetAmount
}

/**
 * Formats an asset amount of an asset with `decimals` decimals in natural units.
 *
 * @example
 * formatAssetAmount(toAssetAmount(12_500_000n), 6) // '12.5'
 */
export function formatAssetAmount(amount: AssetAmount, decimals: number): string {
  return formatDecimal(amount, assetDecimalsOf(decimals))
}

/**
 * Parses a market price (`"418.6"`, `"56300"`) into a {@link Price}. Rejects with `BAD_DECIMAL`
 * an empty string, a sign, exponent notation, whitespace, a missing digit on either side of the
 * point, and more than 8 significant decimal places (trailing zeros beyond 8 are harmless).
 *
 * @example
 * parsePrice('418.6') // 41860000000n
 */
export function parsePrice(text: string): Price {
  return parseDecimal(text, priceDecimals, 'Price') as Price
}

/**
 * Formats a {@link Price} as a canonical decimal: no trailing zeros, no point for whole values.
 *
 * @example
 * formatPrice(parsePrice('418.60')) // '418.6'
 * formatPrice(parsePrice('56300')) // '56300'
 */
export function formatPrice(price: Price): string {
  return formatDecimal(price, priceDecimals)
}

const plainDecimal = /^(\d+)(?:\.(\d+))?$/

function parseDecimal(text: string, decimals: number, what: string): bigint {
  const fail = (reason: string, problem: string) =>
    new DomainRuleError({
      code: 'BAD_DECIMAL',
      shortMessage: `${what} ${JSON.stringify(text)} ${problem}`,
      details: { value: String(text), reason, maxDecimals: decimals },
    })
  const example = decimals === 0 ? '"100"' : '"12.5"'
  if (typeof text !== 'string')
    throw fail('not-a-string', `is not a string: pass a decimal string such as ${example}.`)
  if (text === '') throw fail('empty', `is empty: pass a decimal string such as ${example}.`)
  if (text.trim() !== text) throw fail('whitespace', 'has surrounding whitespace: trim it first.')
  if (text.startsWith('-')) throw fail('negative', 'is negative: only zero or positive values are allowed.')
  const match = plainDecimal.exec(text)
  if (!match) {
    if (/^[+]?\d*\.?\d*[eE][+-]?\d+$/.test(text))
      throw fail('exponent', 'uses exponent notation: write it in plain digits (e.g. "0.0001", not "1e-4").')
    throw fail(
      'syntax',
      `is not a plain decimal: use digits with an optional fractional part, no sign, no separators, e.g. ${example}.`,
    )
  }
  const significant = (match[2] ?? '').replace(/0+$/, '')
  if (significant.length > decimals) {
    if (decimals === 0)
      throw new DomainRuleError({
        code: 'FRACTIONAL_SHARES',
        shortMessage: `${what} ${JSON.stringify(text)} is not a whole number of shares: StockTokens have 0 decimals. Use a whole number, or a ShareToken for fractions.`,
        details: { value: text },
      })
    throw fail(
      'too-many-decimals',
      `has ${significant.length} decimal places, more than the ${decimals} allowed: round it to ${decimals} places first.`,
    )
  }
  return BigInt(`${match[1]}${significant.padEnd(decimals, '0')}`)
}

/** `value / 10^decimals` as a decimal string: no trailing zeros, no point for whole values. */
function formatDecimal(value: bigint, decimals: number): string {
  const negative = value < 0n
  const digits = (negative ? -value : value).toString().padStart(decimals + 1, '0')
  const integer = digits.slice(0, digits.length - decimals)
  const fraction = digits.slice(digits.length - decimals).replace(/0+$/, '')
  return `${negative ? '-' : ''}${integer}${fraction === '' ? '' : `.${fraction}`}`
}
