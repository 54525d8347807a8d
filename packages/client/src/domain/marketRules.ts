import type { MarketCode } from './markets.js'
import { usSpreadTableCode } from './spreadTables.js'

// Market rules (reference: "Market-specific rules" and rule 3 of GET /api/v1/router/quote).
// HK: quantities in multiples of the ticker's lot size; prices on the tick of their price band.
// KR: minimum unit 1 share, no fractional shares (no ShareTokens); prices on the KRX band tick.
// US: lot 1, tick 0.01.
// The rules: tickRules.ts (prices), quantityRules.ts (lots, whole shares), stablecoinInSizing.ts
// (rule 3). Here: each market's currency and defaults.

/** Currency of each market's prices, for messages. */
export const marketCurrencies = { usex: 'USD', hkex: 'HKD', krex: 'KRW' } as const satisfies Record<
  MarketCode,
  string
>

/**
 * Per-market defaults. HK lot sizes differ per ticker (`lot_size` from the ticker's info), so HK
 * has no default lot; most HK stocks use spread table `1` (Part A). KR's minimum unit is 1 share.
 */
export const marketDefaults = {
  usex: { lotSize: 1n, spreadTableCode: usSpreadTableCode },
  hkex: { lotSize: null, spreadTableCode: '1' },
  krex: { lotSize: 1n, spreadTableCode: 'KRX' },
} as const satisfies Record<MarketCode, { lotSize: bigint | null; spreadTableCode: string }>
