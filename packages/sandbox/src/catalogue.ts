import type { ExchangeCode } from '@stockroute/client/domain/markets.js'

/** One listed stock of the sandbox's seeded catalogue. */
export type CatalogueStock = {
  ticker: string
  exchange: ExchangeCode
  name: string
  stockCode: string
  /** Board lot, whole shares. */
  lotSize: number
  spreadTableCode: string
  /** Starting price in the market's currency (USD, HKD, KRW), on the market's tick grid. */
  referencePrice: string
  /** Whether a ShareToken (ticker + `s`, 18 decimals) exists for it. */
  hasShareToken: boolean
  /** Shares outstanding, for heatmaps' market cap. */
  totalShares: number
}

/**
 * The seeded catalogue listed on every sandbox chain (each chain at its own addresses).
 * HK lots and KR tick bands follow the reference; prices lie on their market's tick grid.
 */
export const sandboxCatalogue: readonly CatalogueStock[] = [
  stock('AAPL', 0, 'Apple Inc.', 'AAPL', 1, '1', '227.48', true, 15_204_137_000),
  stock('TSLA', 0, 'Tesla, Inc.', 'TSLA', 1, '1', '251.44', true, 3_210_060_000),
  stock('NVDA', 0, 'NVIDIA Corporation', 'NVDA', 1, '1', '138.85', true, 24_490_000_000),
  stock('MSFT', 0, 'Microsoft Corporation', 'MSFT', 1, '1', '415.12', false, 7_433_000_000),
  stock('AMZN', 0, 'Amazon.com, Inc.', 'AMZN', 1, '1', '186.40', false, 10_510_000_000),
  stock('0700', 1, 'Tencent Holdings Ltd.', '00700', 100, '1', '418.60', false, 9_220_000_000),
  stock('9988', 1, 'Alibaba Group Holding Ltd.', '09988', 100, '1', '84.15', false, 19_100_000_000),
  stock('0005', 1, 'HSBC Holdings plc', '00005', 400, '1', '68.35', false, 18_100_000_000),
  stock('1810', 1, 'Xiaomi Corporation', '01810', 200, '1', '21.45', false, 25_000_000_000),
  stock('005930', 3, 'Samsung Electronics Co., Ltd.', '005930', 1, 'KRX', '56300', false, 5_969_782_550),
  stock('000660', 3, 'SK hynix Inc.', '000660', 1, 'KRX', '178500', false, 728_002_365),
  stock('035420', 3, 'NAVER Corporation', '035420', 1, 'KRX', '163900', false, 158_437_008),
]

function stock(
  ticker: string,
  exchange: ExchangeCode,
  name: string,
  stockCode: string,
  lotSize: number,
  spreadTableCode: string,
  referencePrice: string,
  hasShareToken: boolean,
  totalShares: number,
): CatalogueStock {
  return {
    ticker,
    exchange,
    name,
    stockCode,
    lotSize,
    spreadTableCode,
    referencePrice,
    hasShareToken,
    totalShares,
  }
}
