// The generated ledger's world: two chains (a 6-decimal asset with a router, an 18-decimal asset
// without), 50 stocks, each listed on both chains as a StockToken (0 decimals) and a ShareToken
// (18 decimals): 200 (chain, token) pairs. Prices are in US dollars per share.

import type { ExchangeCode, TokenKind } from '@stockroute/client/domain/markets.js'
import { getAddress } from 'viem'

export type BenchChain = {
  chainId: number
  assetToken: `0x${string}`
  assetDecimals: number
  /** Seconds between blocks. */
  blockSeconds: number
  firstBlock: number
  /** Share of executions on this chain. */
  weight: number
  wallets: readonly `0x${string}`[]
}

export type BenchStock = {
  index: number
  ticker: string
  exchange: ExchangeCode
  /** Dollars per share at the start. */
  price: number
  /** Relative trading activity (Zipf-like). */
  weight: number
  currency: 'USD' | 'HKD' | 'KRW'
}

export type BenchToken = {
  chain: BenchChain
  stock: BenchStock
  kind: TokenKind
  address: `0x${string}`
  key: string
}

const addressOf = (seed: number) => getAddress(`0x${seed.toString(16).padStart(8, '0').repeat(5)}`)

export const benchChains: readonly BenchChain[] = [
  {
    chainId: 31337,
    assetToken: addressOf(0xa55e7001),
    assetDecimals: 6,
    blockSeconds: 2,
    firstBlock: 18_000_000,
    weight: 0.6,
    wallets: [addressOf(0x7a1e0001), addressOf(0x7a1e0002)],
  },
  {
    chainId: 31338,
    assetToken: addressOf(0xa55e7002),
    assetDecimals: 18,
    blockSeconds: 12,
    firstBlock: 21_000_000,
    weight: 0.4,
    wallets: [addressOf(0x7a1e0003)],
  },
]

const us = [
  ['AAPL', 228],
  ['MSFT', 420],
  ['NVDA', 135],
  ['AMZN', 198],
  ['GOOGL', 172],
  ['FB', 560],
  ['TSLA', 250],
  ['AVGO', 168],
  ['JPM', 224],
  ['V', 290],
  ['UNH', 580],
  ['XOM', 118],
  ['MA', 505],
  ['JNJ', 160],
  ['PG', 172],
  ['HD', 405],
  ['COST', 890],
  ['ABBV', 190],
  ['MRK', 101],
  ['KO', 70],
  ['PEP', 165],
  ['ADBE', 512],
  ['CRM', 290],
  ['NFLX', 720],
  ['AMD', 150],
  ['INTC', 22],
  ['ORCL', 172],
  ['DIS', 95],
  ['NKE', 80],
  ['BA', 155],
  ['PLTR', 42],
  ['UBER', 75],
  ['SBUX', 98],
  ['T', 22],
  ['F', 11],
] as const
const hk = [
  ['0700', 52],
  ['9988', 11],
  ['0005', 8.7],
  ['1299', 8.1],
  ['0941', 9.3],
  ['3690', 21],
  ['1810', 3.3],
  ['0388', 46],
] as const
const kr = [
  ['005930', 44],
  ['000660', 140],
  ['035420', 125],
  ['005380', 180],
  ['051910', 260],
  ['035720', 30],
  ['068270', 130],
] as const

export const benchStocks: readonly BenchStock[] = [
  ...us.map(([ticker, price]) => ({ ticker, price, exchange: 0 as const, currency: 'USD' as const })),
  ...hk.map(([ticker, price]) => ({ ticker, price, exchange: 1 as const, currency: 'HKD' as const })),
  ...kr.map(([ticker, price]) => ({ ticker, price, exchange: 3 as const, currency: 'KRW' as const })),
].map((stock, index) => ({ ...stock, index, weight: 1 / (index + 3) }))

/** The stock renamed mid-period (its tokens' positions get a `position_renames` row). */
export const renamedStock = { from: 'FB', to: 'META' } as const

export const benchTokens: readonly BenchToken[] = benchChains.flatMap((chain, c) =>
  benchStocks.flatMap((stock) =>
    (['stock', 'share'] as const).map((kind) => ({
      chain,
      stock,
      kind,
      address: addressOf(0x70000000 + c * 0x100000 + stock.index * 0x100 + (kind === 'stock' ? 1 : 2)),
      key: `${chain.chainId}:${stock.index}:${kind}`,
    })),
  ),
)

/** The ticker of a token: a ShareToken's is its stock's with a lowercase `s`. */
export const tickerOf = (stockTicker: string, kind: TokenKind) =>
  kind === 'share' ? `${stockTicker}s` : stockTicker

export const strategies = [
  'dca-aapl-alpha',
  'trim-aapl-alpha',
  'rebalance-core',
  'nvda-dip-beta',
  'dca-0700-beta',
  'twap-large-orders',
] as const
