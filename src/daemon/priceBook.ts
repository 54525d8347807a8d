import { priceDecimals } from '@stockroute/client/domain/units.js'
import { formatUnits } from 'viem'
import type { MarketPriceBook } from '../report/types.js'
import type { MarketDataCache } from './marketData.js'

/**
 * The cache's fresh prices as a report's price book (`market:symbol` → price in the market's
 * currency); stale ones are left out, so a position is then valued at its last fill.
 *
 * @example
 * runReport('positions', { ledger, now: Date.now, marketPrices: priceBookOf(marketData) }, {})
 */
export function priceBookOf(
  marketData: Pick<MarketDataCache, 'snapshot'> | undefined,
): MarketPriceBook | undefined {
  if (!marketData) return undefined
  const currencies: Record<string, string> = { usex: 'USD', hkex: 'HKD', krex: 'KRW' }
  const book = new Map<string, { price: string; currency: string; atMs: number }>()
  for (const [key, price] of marketData.snapshot())
    if (!price.stale)
      book.set(key, {
        price: formatUnits(price.price, priceDecimals),
        currency: currencies[price.market] ?? '',
        atMs: price.atMs,
      })
  return book
}
