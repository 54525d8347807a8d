import { DomainRuleError } from './domainRuleError.js'
import { assertNonNegative } from './ruleGuards.js'

// Amounts and units. Every amount is a `bigint` in base units; decimal strings exist only at the
// edges (API JSON, config, reports) and go through `parse*` / `format*` (unitStrings.ts). Each unit
// has its own brand, so passing a ShareToken quantity where a StockToken quantity is expected, or an
// asset amount where a price is expected, does not compile. Conversions: unitConversions.ts.

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

/** Largest asset decimals accepted (an ERC-20 `decimals()` is a uint8; 36 is far beyond any real asset). */
const maxAssetDecimals = 36

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
