import { formatUnits, parseUnits } from 'viem'

// Amounts and units. Every amount is a `bigint` in base units; decimal strings exist only at the
// edges (API JSON, config, reports) and go through `parse*` / `format*` below. Each unit has its
// own brand, so passing a ShareToken quantity where a StockToken quantity is expected, or an asset
// amount where a price is expected, does not compile.

/** A StockToken quantity: whole shares (StockTokens have 0 decimals). */
export type StockQuantity = bigint & { readonly __unit: 'stock-shares' }
/** A ShareToken quantity: fractions of a share, 1 share = 10^18 units (ShareTokens have 18 decimals). */
export type ShareQuantity = bigint & { readonly __unit: 'share-units-1e18' }
/**
 * An amount of a chain's payment asset in its base units. The asset's decimals differ by chain
 * (6 or 18 in practice), so an asset amount always travels with its decimals.
 */
export type AssetAmount = bigint & { readonly __unit: 'asset' }
/** A market price in the market's currency (USD, HKD, KRW), scaled by 10^{@link priceDecimals}. */
export type Price = bigint & { readonly __unit: 'price-1e8' }

/** Rounding direction. Every function that rounds takes one; there is no default. */
export type Rounding = 'down' | 'up'

/** Decimals of a StockToken (whole shares). */
export const stockDecimals = 0
/** Decimals of a ShareToken. */
export const shareDecimals = 18
/** Fixed scale of {@link Price}: 8 decimal places, enough for every tick size of every market. */
export const priceDecimals = 8

const shareScale = 10n ** BigInt(shareDecimals)
/** Largest asset decimals accepted (an ERC-20 `decimals()` is a uint8; 36 is far beyond any real asset). */
const maxAssetDecimals = 36

// ---------------------------------------------------------------------------------------------
// Error

/** Stable codes of {@link DomainRuleError}. */
export type DomainRuleErrorCode =
  | 'BAD_DECIMAL'
  | 'BAD_DECIMALS'
  | 'NEGATIVE_AMOUNT'
  | 'ROUNDS_TO_ZERO'
  | 'FRACTIONAL_SHARES'
  | 'BAD_LOT_SIZE'
  | 'NOT_LOT_MULTIPLE'
  | 'BELOW_ONE_LOT'
  | 'OFF_TICK'
  | 'PRICE_OUT_OF_RANGE'
  | 'UNKNOWN_SPREAD_TABLE'
  | 'BAD_SPREAD_TABLE'

/** Structured context of a {@link DomainRuleError}: plain JSON values (amounts as decimal strings). */
export type DomainRuleErrorDetails = Readonly<Record<string, string | number | boolean | null>>

/**
 * A value broke a unit or market rule. `code` is stable (switch on it), `shortMessage` says what
 * was wrong and how to fix it, `details` carries the values involved as JSON-safe data.
 *
 * @example
 * try {
 *   parsePrice('1e3')
 * } catch (error) {
 *   if (error instanceof DomainRuleError && error.code === 'BAD_DECIMAL') console.log(error.shortMessage)
 * }
 */
export class DomainRuleError extends Error {
  override name = 'DomainRuleError'
  readonly code: DomainRuleErrorCode
  readonly shortMessage: string
  readonly details: DomainRuleErrorDetails

  constructor(parameters: {
    code: DomainRuleErrorCode
    shortMessage: string
    details?: DomainRuleErrorDetails
    cause?: unknown
  }) {
    const { code, shortMessage, details = {}, cause } = parameters
    super(shortMessage, cause === undefined ? undefined : { cause })
    this.code = code
    this.shortMessage = shortMessage
    this.details = details
  }
}

// ---------------------------------------------------------------------------------------------
// Constructors (validate, then brand)

/**
 * Brands a whole-share count as a {@link StockQuantity}. Throws `NEGATIVE_AMOUNT` below zero.
 *
 * @example
 * toStockQuantity(100n) // 100n as StockQuantity
 */
export function toStockQuantity(value: bigint): StockQuantity {
  assertNonNegative(value, 'Stock quantity')
  return value as StockQuantity
}

/**
 * Brands 18-decimal ShareToken units as a {@link ShareQuantity}. Throws `NEGATIVE_AMOUNT` below zero.
 *
 * @example
 * toShareQuantity(500_000_000_000_000_000n) // half a share
 */
export function toShareQuantity(value: bigint): ShareQuantity {
  assertNonNegative(value, 'Share quantity')
  return value as ShareQuantity
}

/**
 * Brands asset base units as an {@link AssetAmount}. Throws `NEGATIVE_AMOUNT` below zero.
 *
 * @example
 * toAssetAmount(1_500_000n) // 1.5 of a 6-decimal asset
 */
export function toAssetAmount(value: bigint): AssetAmount {
  assertNonNegative(value, 'Asset amount')
  return value as AssetAmount
}

/**
 * Brands a value scaled by 10^8 as a {@link Price}. Throws `NEGATIVE_AMOUNT` below zero.
 *
 * @example
 * toPrice(41_860_000_000n) // 418.6
 */
export function toPrice(value: bigint): Price {
  assertNonNegative(value, 'Price')
  return value as Price
}

/**
 * Checks that `decimals` is a valid asset decimals count (an integer from 0 to 36) and returns it.
 * Throws `BAD_DECIMALS` otherwise.
 *
 * @example
 * assetDecimalsOf(6) // 6
 */
export function assetDecimalsOf(decimals: number): number {
  if (!Number.isInteger(decimals) || decimals < 0 || decimals > maxAssetDecimals)
    throw new DomainRuleError({
      code: 'BAD_DECIMALS',
      shortMessage: `Asset decimals ${String(decimals)} are not valid: use the token's ERC-20 decimals(), an integer from 0 to ${maxAssetDecimals} (6 or 18 for the service's assets).`,
      details: { decimals: String(decimals) },
    })
  return decimals
}

// ---------------------------------------------------------------------------------------------
// Parsing and formatting (the edges)

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
  return formatUnits(quantity, stockDecimals)
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
  return formatUnits(quantity, shareDecimals)
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
  return formatUnits(amount, assetDecimalsOf(decimals))
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
  return formatUnits(price, priceDecimals)
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
  return parseUnits(text, decimals)
}

// ---------------------------------------------------------------------------------------------
// Arithmetic with explicit rounding

/**
 * `numerator / denominator` for non-negative operands, rounded in the given direction.
 *
 * @example
 * divideRounded(7n, 2n, 'down') // 3n
 * divideRounded(7n, 2n, 'up') // 4n
 */
export function divideRounded(numerator: bigint, denominator: bigint, direction: Rounding): bigint {
  if (numerator < 0n || denominator <= 0n)
    throw new RangeError(
      `divideRounded needs numerator >= 0 and denominator > 0, got ${numerator}/${denominator}`,
    )
  const quotient = numerator / denominator
  return direction === 'up' && quotient * denominator !== numerator ? quotient + 1n : quotient
}

/**
 * Converts an asset amount between two decimal scales (the same asset on chains with 6 and 18
 * decimals). Throws `ROUNDS_TO_ZERO` when a non-zero amount would become zero.
 *
 * @example
 * rescaleAssetAmount({ amount: toAssetAmount(1_500_000n), fromDecimals: 6, toDecimals: 18, direction: 'down' })
 * // 1500000000000000000n
 */
export function rescaleAssetAmount(parameters: {
  amount: AssetAmount
  fromDecimals: number
  toDecimals: number
  direction: Rounding
}): AssetAmount {
  const { amount, direction } = parameters
  const fromDecimals = assetDecimalsOf(parameters.fromDecimals)
  const toDecimals = assetDecimalsOf(parameters.toDecimals)
  assertNonNegative(amount, 'Asset amount')
  const result =
    toDecimals >= fromDecimals
      ? amount * 10n ** BigInt(toDecimals - fromDecimals)
      : divideRounded(amount, 10n ** BigInt(fromDecimals - toDecimals), direction)
  assertNotRoundedToZero(amount, result, {
    what: `Asset amount ${formatUnits(amount, fromDecimals)}`,
    target: `${toDecimals}-decimal base units`,
  })
  return result as AssetAmount
}

/**
 * Converts a market {@link Price} per share into asset base units per whole share, assuming the
 * asset is denominated in the market's currency (no FX here). Throws `ROUNDS_TO_ZERO` when a
 * non-zero price is below one base unit of the asset in the chosen direction.
 *
 * @example
 * priceToAssetAmount({ price: parsePrice('418.6'), assetDecimals: 6, direction: 'up' }) // 418600000n
 */
export function priceToAssetAmount(parameters: {
  price: Price
  assetDecimals: number
  direction: Rounding
}): AssetAmount {
  const { price, direction } = parameters
  const assetDecimals = assetDecimalsOf(parameters.assetDecimals)
  assertNonNegative(price, 'Price')
  const result =
    assetDecimals >= priceDecimals
      ? price * 10n ** BigInt(assetDecimals - priceDecimals)
      : divideRounded(price, 10n ** BigInt(priceDecimals - assetDecimals), direction)
  assertNotRoundedToZero(price, result, {
    what: `Price ${formatPrice(price)}`,
    target: `base units of a ${assetDecimals}-decimal asset`,
  })
  return result as AssetAmount
}

/**
 * Whole StockToken shares as 18-decimal ShareToken units (exact).
 *
 * @example
 * stockToShareQuantity(toStockQuantity(2n)) // 2000000000000000000n
 */
export function stockToShareQuantity(quantity: StockQuantity): ShareQuantity {
  assertNonNegative(quantity, 'Stock quantity')
  return (quantity * shareScale) as ShareQuantity
}

/**
 * ShareToken units as whole StockToken shares, rounded in the given direction. Throws
 * `ROUNDS_TO_ZERO` when a non-zero quantity would become zero shares.
 *
 * @example
 * shareToStockQuantity(parseShareQuantity('2.5'), 'down') // 2n
 */
export function shareToStockQuantity(quantity: ShareQuantity, direction: Rounding): StockQuantity {
  assertNonNegative(quantity, 'Share quantity')
  const result = divideRounded(quantity, shareScale, direction)
  assertNotRoundedToZero(quantity, result, {
    what: `Share quantity ${formatShareQuantity(quantity)}`,
    target: 'whole shares',
  })
  return result as StockQuantity
}

/**
 * The exact cost of whole shares at a price in asset base units per share.
 *
 * @example
 * assetAmountForStock({ quantity: toStockQuantity(100n), pricePerShareInAsset: toAssetAmount(418_600_000n) })
 * // 41860000000n
 */
export function assetAmountForStock(parameters: {
  quantity: StockQuantity
  pricePerShareInAsset: AssetAmount
}): AssetAmount {
  const { quantity, pricePerShareInAsset } = parameters
  assertNonNegative(quantity, 'Stock quantity')
  assertNonNegative(pricePerShareInAsset, 'Price per share')
  return (quantity * pricePerShareInAsset) as AssetAmount
}

/**
 * The cost of a ShareToken quantity at a price in asset base units per whole share, rounded to
 * the asset's base unit in the given direction. Throws `ROUNDS_TO_ZERO` when a non-zero cost
 * would become zero.
 *
 * @example
 * assetAmountForShares({
 *   quantity: parseShareQuantity('0.5'),
 *   pricePerShareInAsset: toAssetAmount(3n),
 *   direction: 'up',
 * }) // 2n (1.5 rounded up)
 */
export function assetAmountForShares(parameters: {
  quantity: ShareQuantity
  pricePerShareInAsset: AssetAmount
  direction: Rounding
}): AssetAmount {
  const { quantity, pricePerShareInAsset, direction } = parameters
  assertNonNegative(quantity, 'Share quantity')
  assertNonNegative(pricePerShareInAsset, 'Price per share')
  const exact = quantity * pricePerShareInAsset
  const result = divideRounded(exact, shareScale, direction)
  assertNotRoundedToZero(exact, result, {
    what: `The cost of ${formatShareQuantity(quantity)} shares`,
    target: 'asset base units',
  })
  return result as AssetAmount
}

function assertNonNegative(value: bigint, what: string): void {
  if (typeof value !== 'bigint')
    throw new TypeError(
      `${what} must be a bigint in base units, got ${typeof value}: convert with the parse functions.`,
    )
  if (value < 0n)
    throw new DomainRuleError({
      code: 'NEGATIVE_AMOUNT',
      shortMessage: `${what} ${value} is negative: amounts and quantities are zero or positive.`,
      details: { value: value.toString() },
    })
}

function assertNotRoundedToZero(
  input: bigint,
  result: bigint,
  context: { what: string; target: string },
): void {
  if (input !== 0n && result === 0n)
    throw new DomainRuleError({
      code: 'ROUNDS_TO_ZERO',
      shortMessage: `${context.what} rounds to zero in ${context.target}: use a larger value.`,
      details: { value: input.toString(), target: context.target },
    })
}
