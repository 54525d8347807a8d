// The generated ledger's world while it is written: prices (a daily random walk per stock, times the
// split factor in force), activity weights (chain, then token: stock popularity × kind), the fold of
// positions (the store's own rule, applyPositionEntry, applied as the rows are written), the ledger
// sequence, and the chain state (nonces per wallet, the block of an instant). Shared by the row
// generators (corporateActions.ts, executionRows.ts); every draw goes through the one seeded
// `random`, in the order the rows are written, so that a seed gives the same file.
import {
  applyPositionEntry,
  type PositionEntry,
  type PositionState,
} from '../../src/store/positionAccounting.js'
import type { Random } from './random.js'
import {
  type BenchChain,
  type BenchToken,
  benchChains,
  benchStocks,
  benchTokens,
  tickerOf,
} from './universe.js'

export const day = 86_400_000
export const tenPow = (n: number) => 10n ** BigInt(n)
export const fx = { USD: 1, HKD: 7.8, KRW: 1380 } as const

/** Canonical decimal text (no trailing fraction zero) of a non-negative number. */
export const decimalText = (value: number, digits: number) => {
  const text = value.toFixed(digits)
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text
}

/** Asset base units per whole share. */
export const priceBase = (price: number, assetDecimals: number) =>
  BigInt(Math.max(1, Math.round(price * 1e6))) * tenPow(assetDecimals - 6)

const cumulativeOf = (weights: number[]) => {
  const out = new Float64Array(weights.length)
  let sum = 0
  weights.forEach((w, i) => {
    sum += w
    out[i] = sum
  })
  return out
}

export type LedgerState = ReturnType<typeof createLedgerState>

/** The world at `startMs`. Draws the price walks from `random` (first, before any row). */
export function createLedgerState(options: { random: Random; startMs: number; days: number }) {
  const { random, startMs, days } = options

  // --- prices: a daily random walk per stock, times the split factor in force
  const walk = benchStocks.map((stock) => {
    const prices = new Float64Array(days + 2)
    let p = stock.price
    for (let d = 0; d < prices.length; d++) {
      prices[d] = p
      p *= Math.exp(random.logNormal(1, 0.018) - 1 + (random.next() - 0.5) * 0.03)
    }
    return prices
  })
  const splitFactor = new Float64Array(benchStocks.length).fill(1)
  const priceOf = (stockIndex: number, atMs: number) => {
    const d = Math.min(days + 1, Math.max(0, Math.floor((atMs - startMs) / day)))
    const intraday = 1 + (random.next() - 0.5) * 0.01
    return ((walk[stockIndex] as Float64Array)[d] as number) * intraday * (splitFactor[stockIndex] as number)
  }

  // --- activity weights: chain, then token (stock popularity × kind)
  const stockWeight = benchStocks.map((stock) => stock.weight)
  const tokenWeightsNow = () =>
    cumulativeOf(
      benchTokens.map(
        (t) => t.chain.weight * (stockWeight[t.stock.index] as number) * (t.kind === 'stock' ? 0.6 : 0.4),
      ),
    )

  // --- the fold, with the store's own rule
  const positions = new Map<string, PositionState>()
  const positionUpdatedAt = new Map<string, number>()
  const currentTicker = new Map<number, string>(benchStocks.map((s) => [s.index, s.ticker]))

  // --- chain state: nonces per wallet, block of an instant
  const nonces = new Map<string, number>(
    benchChains.flatMap((c) => c.wallets.map((w) => [`${c.chainId}:${w}`, 0])),
  )

  const state = {
    random,
    startMs,
    days,
    splitFactor,
    priceOf,
    stockWeight,
    /** Cumulative weights of benchTokens, for random.pick. */
    tokenWeights: tokenWeightsNow(),
    /** Recomputes tokenWeights after a change of stockWeight. */
    reweight: () => {
      state.tokenWeights = tokenWeightsNow()
    },
    positions,
    positionUpdatedAt,
    currentTicker,
    /** The last ledger sequence number given (fills, adjustments, renames share it). */
    seq: 0,
    /** The next ledger sequence number. */
    nextSeq: () => {
      state.seq += 1
      return state.seq
    },
    apply: (token: BenchToken, entry: PositionEntry, atMs: number) => {
      positions.set(token.key, applyPositionEntry(positions.get(token.key), entry))
      positionUpdatedAt.set(token.key, atMs)
    },
    tokenInfo: (token: BenchToken) => ({
      ticker: tickerOf(currentTicker.get(token.stock.index) as string, token.kind),
      exchange: token.stock.exchange,
      tokenKind: token.kind,
      assetToken: token.chain.assetToken,
      assetDecimals: token.chain.assetDecimals,
    }),
    nonces,
    blockAt: (chain: BenchChain, atMs: number) =>
      chain.firstBlock + Math.floor((atMs - startMs) / (chain.blockSeconds * 1000)),
    blockTimeOf: (chain: BenchChain, block: number) =>
      Math.floor(startMs / 1000) + (block - chain.firstBlock) * chain.blockSeconds,
  }
  return state
}
