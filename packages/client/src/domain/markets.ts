/** Exchange codes of the service (the reference's enumeration). */
export const exchangeCodes = { us: 0, hk: 1, kr: 3 } as const
export type ExchangeCode = (typeof exchangeCodes)[keyof typeof exchangeCodes]

/** Market codes used by the market-data endpoints. */
export const marketCodes = { 0: 'usex', 1: 'hkex', 3: 'krex' } as const satisfies Record<ExchangeCode, string>
export type MarketCode = (typeof marketCodes)[ExchangeCode]

/** Exchange names shown in token lists (`USEX` is the one the reference shows). */
export const exchangeNames = { 0: 'USEX', 1: 'HKEX', 3: 'KREX' } as const satisfies Record<
  ExchangeCode,
  string
>

export function isExchangeCode(value: number): value is ExchangeCode {
  return value === 0 || value === 1 || value === 3
}

export function exchangeOfMarket(market: MarketCode): ExchangeCode {
  return market === 'usex' ? 0 : market === 'hkex' ? 1 : 3
}

/** Token kinds: a StockToken is whole shares (0 decimals), a ShareToken fractions (18 decimals). */
export const tokenKinds = { stock: { decimals: 0 }, share: { decimals: 18 } } as const
export type TokenKind = keyof typeof tokenKinds

/** A ShareToken's ticker is its stock's ticker with a lowercase `s` suffix. */
export function shareTicker(stockTicker: string): string {
  return `${stockTicker}s`
}
