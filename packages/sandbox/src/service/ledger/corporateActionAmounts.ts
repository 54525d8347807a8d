import type { ExchangeCode } from '@stockroute/client/domain/markets.js'
import { priceDecimals } from '@stockroute/client/domain/units.js'
import { originalAmountDecimals } from './corporateActionTypes.js'
import { usdRateOf } from './valuation.js'

// Amount arithmetic of corporate actions: market-currency amounts in a USD asset's base units.

/** An amount in the market's currency (scaled 1e18) in base units of a USD asset, rounded down. */
export function toAssetUnits(amountE18: bigint, exchange: ExchangeCode, assetDecimals: number): bigint {
  return (
    (amountE18 * usdRateOf(exchange) * 10n ** BigInt(assetDecimals)) /
    10n ** BigInt(originalAmountDecimals + priceDecimals)
  )
}

export function divideUp(numerator: bigint, denominator: bigint): bigint {
  return (numerator + denominator - 1n) / denominator
}
