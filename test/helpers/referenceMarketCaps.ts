import type { ExchangeCode } from '@stockroute/client/domain/markets.js'

/**
 * The heatmap of each exchange when every stock trades at its catalogue reference price (as
 * holdPricesAtReference in ./pinnedPrices.ts makes it), worked out by hand: market cap = total
 * shares × reference price, in the market's currency (no conversion), largest first. Every product
 * here is a whole number, so the truncation the endpoint applies does not show (tested apart).
 */
export const referenceMarketCaps: Readonly<Record<ExchangeCode, readonly HandMarketCap[]>> = {
  0: [
    { symbol: 'AAPL', marketCap: 3_458_637_084_760 }, // 15,204,137,000 × 227.48 USD
    { symbol: 'NVDA', marketCap: 3_400_436_500_000 }, // 24,490,000,000 × 138.85
    { symbol: 'MSFT', marketCap: 3_085_586_960_000 }, // 7,433,000,000 × 415.12
    { symbol: 'AMZN', marketCap: 1_959_064_000_000 }, // 10,510,000,000 × 186.40
    { symbol: 'TSLA', marketCap: 807_137_486_400 }, // 3,210,060,000 × 251.44
  ],
  1: [
    { symbol: '0700', marketCap: 3_859_492_000_000 }, // 9,220,000,000 × 418.60 HKD
    { symbol: '9988', marketCap: 1_607_265_000_000 }, // 19,100,000,000 × 84.15
    { symbol: '0005', marketCap: 1_237_135_000_000 }, // 18,100,000,000 × 68.35
    { symbol: '1810', marketCap: 536_250_000_000 }, // 25,000,000,000 × 21.45
  ],
  3: [
    { symbol: '005930', marketCap: 336_098_757_565_000 }, // 5,969,782,550 × 56,300 KRW
    { symbol: '000660', marketCap: 129_948_422_152_500 }, // 728,002,365 × 178,500
    { symbol: '035420', marketCap: 25_967_825_611_200 }, // 158,437,008 × 163,900
  ],
}

export type HandMarketCap = { symbol: string; marketCap: number }
