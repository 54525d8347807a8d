import { DomainRuleError } from './domainRuleError.js'
import { marketDefaults } from './marketRules.js'
import type { MarketCode } from './markets.js'
import { assertLotSize } from './ruleGuards.js'
import { formatShareQuantity } from './unitStrings.js'
import type { ShareQuantity, StockQuantity } from './units.js'

// Lot and quantity rules: HK quantities in whole lots, KR whole shares only, US and KR lot 1.

/**
 * The lot size of a ticker: the given `lot_size` (from ticker info), else the market's default.
 * Throws `BAD_LOT_SIZE` for a non-positive lot size or an HK ticker without one.
 *
 * @example
 * resolveLotSize({ market: 'krex' }) // 1n
 * resolveLotSize({ market: 'hkex', lotSize: 100n }) // 100n
 */
export function resolveLotSize(parameters: { market: MarketCode; lotSize?: bigint }): bigint {
  const { market } = parameters
  const lotSize = parameters.lotSize ?? marketDefaults[market].lotSize
  if (lotSize === null)
    throw new DomainRuleError({
      code: 'BAD_LOT_SIZE',
      shortMessage: `HK lot sizes differ per ticker: pass the ticker's lot_size from GET /market/v1/tickers/{symbol}/info?market=hkex.`,
      details: { market },
    })
  return assertLotSize(lotSize)
}

/**
 * Throws unless `quantity` is a positive multiple of `lotSize` (the HK lot rule; KR and US have
 * lot 1, so only zero fails there). `BELOW_ONE_LOT` for zero, `NOT_LOT_MULTIPLE` otherwise, with
 * the nearest valid quantities in the message. Quantities are never adjusted silently.
 *
 * @example
 * assertLotMultiple({ quantity: toStockQuantity(300n), lotSize: 100n }) // ok
 * assertLotMultiple({ quantity: toStockQuantity(250n), lotSize: 100n }) // throws NOT_LOT_MULTIPLE
 */
export function assertLotMultiple(parameters: { quantity: StockQuantity; lotSize: bigint }): void {
  const { quantity } = parameters
  const lotSize = assertLotSize(parameters.lotSize)
  if (quantity <= 0n)
    throw new DomainRuleError({
      code: 'BELOW_ONE_LOT',
      shortMessage: `Quantity ${quantity} is below one lot: order at least ${lotSize} shares.`,
      details: { quantity: quantity.toString(), lotSize: lotSize.toString() },
    })
  if (quantity % lotSize === 0n) return
  const down = (quantity / lotSize) * lotSize
  const up = down + lotSize
  throw new DomainRuleError({
    code: 'NOT_LOT_MULTIPLE',
    shortMessage: `Quantity ${quantity} is not a multiple of the lot size ${lotSize}: use ${down === 0n ? '' : `${down} or `}${up} shares.`,
    details: {
      quantity: quantity.toString(),
      lotSize: lotSize.toString(),
      down: down.toString(),
      up: up.toString(),
    },
  })
}

/**
 * `quantity` rounded down to whole lots. Throws `BELOW_ONE_LOT` when that leaves nothing.
 *
 * @example
 * roundDownToLots(toStockQuantity(250n), 100n) // 200n
 */
export function roundDownToLots(quantity: StockQuantity, lotSize: bigint): StockQuantity {
  const lot = assertLotSize(lotSize)
  const result = quantity < 0n ? 0n : (quantity / lot) * lot
  if (result === 0n)
    throw new DomainRuleError({
      code: 'BELOW_ONE_LOT',
      shortMessage: `Quantity ${quantity} is less than one lot of ${lot} shares: order at least ${lot} shares.`,
      details: { quantity: quantity.toString(), lotSize: lot.toString() },
    })
  return result as StockQuantity
}

/** A quantity together with the kind of token it counts. */
export type TokenQuantity =
  | { token: 'stock'; quantity: StockQuantity }
  | { token: 'share'; quantity: ShareQuantity }

/**
 * The KR rule "minimum unit 1 share, no fractional shares": on `krex` a ShareToken quantity is
 * rejected with `FRACTIONAL_SHARES`, whatever its value (KR stocks trade as StockTokens only).
 * Other markets pass.
 *
 * @example
 * assertWholeShares({ market: 'krex', token: 'stock', quantity: toStockQuantity(3n) }) // ok
 * assertWholeShares({ market: 'krex', token: 'share', quantity: parseShareQuantity('0.5') }) // throws
 */
export function assertWholeShares(parameters: { market: MarketCode } & TokenQuantity): void {
  if (parameters.market !== 'krex' || parameters.token === 'stock') return
  throw new DomainRuleError({
    code: 'FRACTIONAL_SHARES',
    shortMessage: `South Korea stocks trade in whole shares only, but a ShareToken quantity (${formatShareQuantity(parameters.quantity)} shares) was given. Trade the StockToken with a whole number of shares.`,
    details: { market: parameters.market, quantity: formatShareQuantity(parameters.quantity) },
  })
}

/**
 * All quantity rules of an order in one call: KR whole shares ({@link assertWholeShares}), then
 * for StockToken quantities the lot rule ({@link assertLotMultiple}) with the ticker's lot size
 * or the market default; a ShareToken quantity must be non-zero (`ROUNDS_TO_ZERO` otherwise —
 * a zero fraction is what a too-small amount rounds to).
 *
 * @example
 * assertOrderQuantity({ market: 'hkex', lotSize: 500n, token: 'stock', quantity: toStockQuantity(1000n) }) // ok
 */
export function assertOrderQuantity(
  parameters: { market: MarketCode; lotSize?: bigint } & TokenQuantity,
): void {
  assertWholeShares(parameters)
  if (parameters.token === 'stock') {
    const { market, quantity } = parameters
    const lotSize = resolveLotSize(
      parameters.lotSize === undefined ? { market } : { market, lotSize: parameters.lotSize },
    )
    assertLotMultiple({ quantity, lotSize })
    return
  }
  if (parameters.quantity <= 0n)
    throw new DomainRuleError({
      code: 'ROUNDS_TO_ZERO',
      shortMessage: 'ShareToken quantity is zero: order a positive fraction of a share.',
      details: { quantity: parameters.quantity.toString() },
    })
}
