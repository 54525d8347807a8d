import type { ExchangeCode, TokenKind } from '@stockroute/client/domain/markets.js'
import type { AssetAmount, Price } from '@stockroute/client/domain/units.js'
import { type Address, formatUnits, getAddress, type Hex, keccak256, toHex } from 'viem'
import { openLedger } from '../../src/store/index.js'

// Ledgers written through the ledger's own repositories (no chain needed) for the reports over
// several ledgers ("shards", one per daemon): executions that move through their states on a clock
// of the test's (so every latency is known), fills, a dividend, a split, failed and rejected
// executions, the kill switch. A ledger is a list of events; the same events written into one
// ledger make the ledger that holds them all, the oracle of the merged reports.

/** The two chains: a 6-decimal asset (USDC) and an 18-decimal one (USDT0). */
export const shardChains = {
  A: { chainId: 31_337, asset: getAddress(`0x${'a6'.repeat(20)}`), decimals: 6, symbol: 'USDC' },
  B: { chainId: 31_338, asset: getAddress(`0x${'b8'.repeat(20)}`), decimals: 18, symbol: 'USDT0' },
} as const

type ShardToken = {
  chain: keyof typeof shardChains
  ticker: string
  exchange: ExchangeCode
  kind: TokenKind
  address: Address
}

/** The tokens: StockTokens on chain A, a ShareToken (18 decimals) and an HK StockToken on chain B. */
export const shardTokens = {
  AAPL: {
    chain: 'A',
    ticker: 'AAPL',
    exchange: 0,
    kind: 'stock',
    address: getAddress(`0x${'1a'.repeat(20)}`),
  },
  MSFT: {
    chain: 'A',
    ticker: 'MSFT',
    exchange: 0,
    kind: 'stock',
    address: getAddress(`0x${'2b'.repeat(20)}`),
  },
  TSLA: {
    chain: 'B',
    ticker: 'TSLA',
    exchange: 0,
    kind: 'share',
    address: getAddress(`0x${'3c'.repeat(20)}`),
  },
  HK0700: {
    chain: 'B',
    ticker: '0700',
    exchange: 1,
    kind: 'stock',
    address: getAddress(`0x${'4d'.repeat(20)}`),
  },
} as const satisfies Record<string, ShardToken>

export type ShardTokenName = keyof typeof shardTokens

/** One event of a ledger, at `at` (Unix ms: the execution's creation, the income's recording…). */
export type ShardEvent =
  | {
      kind: 'trade'
      at: number
      token: ShardTokenName
      side: 'buy' | 'sell'
      /** Token base units. */
      stock: bigint
      /** Asset base units: paid, fee included, on a buy; received, net of fee, on a sell. */
      asset: bigint
      fee: bigint
      strategy?: string
      /** The market price (1e8, market currency) the execution read: the fill gets a slippage vs market. */
      marketPrice?: bigint
    }
  | {
      kind: 'refused'
      at: number
      token: ShardTokenName
      state: 'rejected' | 'failed'
      reason: string
      strategy?: string
    }
  | {
      kind: 'dividend'
      at: number
      token: ShardTokenName
      amount: bigint
      quantity: bigint
      reference: string
    }
  | {
      kind: 'split'
      at: number
      token: ShardTokenName
      numerator: bigint
      denominator: bigint
      reference: string
    }
  | { kind: 'halt'; at: number; reason: string }

/**
 * The stage durations (ms) of a trade's execution: intent → quote, quote → broadcast, broadcast →
 * inclusion, each varied by its time so that percentiles mean something.
 */
export function stageDurations(at: number): [number, number, number] {
  const step = Math.floor(at / 1000) % 97
  return [40 + ((step * 37) % 300), 15 + ((step * 11) % 120), 900 + ((step * 53) % 2500)]
}

/**
 * Writes `events` (in time order) into a new ledger at `path`, through the repositories, the
 * ledger's clock set to each event's time. Tx hashes, quote ids and intent ids derive from each
 * event's time and token, so the same event writes the same rows in any ledger.
 *
 * @example
 * writeShardLedger(join(dir, 'a.sqlite'), eventsOfA)
 */
export function writeShardLedger(path: string, events: readonly ShardEvent[]): void {
  let clock = 0
  const ledger = openLedger({ path, now: () => clock })
  try {
    for (const chain of Object.values(shardChains))
      ledger.chainAssets.record({
        chainId: chain.chainId,
        address: chain.asset,
        symbol: chain.symbol,
        decimals: chain.decimals,
      })
    for (const event of [...events].sort((a, b) => a.at - b.at)) {
      clock = event.at
      const id = `${event.at}:${event.kind}:${'token' in event ? event.token : ''}`
      if (event.kind === 'halt') {
        ledger.risk.halt(event.reason)
        continue
      }
      const token = shardTokens[event.token]
      const chain = shardChains[token.chain]
      if (event.kind === 'dividend') {
        ledger.income.recordIncome({
          chainId: chain.chainId,
          tokenAddress: token.address,
          ticker: token.ticker,
          kind: 'dividend',
          amount: event.amount as AssetAmount,
          assetToken: chain.asset,
          assetDecimals: chain.decimals,
          quantity: event.quantity,
          original: { currency: 'USD', gross: '1', tax: '0', fee: '0', net: '1', taxRate: 0 },
          txHash: hashOf(`income:${id}`),
          logIndex: 0,
          reference: event.reference,
          reason: `dividend of ${token.ticker}`,
        })
        continue
      }
      if (event.kind === 'split') {
        ledger.positions.applyPositionAdjustment({
          chainId: chain.chainId,
          tokenAddress: token.address,
          kind: 'split',
          numerator: event.numerator,
          denominator: event.denominator,
          reason: `split of ${token.ticker}`,
          reference: event.reference,
        })
        continue
      }
      const execution = ledger.executions.createExecution({
        intentId: `intent:${id}`,
        chainId: chain.chainId,
        ticker: token.ticker,
        exchange: token.exchange,
        side: event.kind === 'trade' ? event.side : 'buy',
        amountIn: event.kind === 'trade' && event.side === 'sell' ? '1' : '100',
        amountType: event.kind === 'trade' && event.side === 'sell' ? 'stocktoken' : 'stablecoin',
        strategy: event.strategy,
      })
      if (event.kind === 'refused') {
        if (event.state === 'rejected')
          ledger.executions.transition(execution.id, 'intent', 'rejected', event.reason)
        else {
          clock += 50
          ledger.executions.transition(execution.id, 'intent', 'quoting', 'quote requested')
          ledger.executions.transition(execution.id, 'quoting', 'failed', event.reason)
        }
        continue
      }
      const [toQuote, toBroadcast, toInclusion] = stageDurations(event.at)
      const quoteId = hashOf(`quote:${id}`)
      clock = event.at + toQuote
      ledger.executions.transition(execution.id, 'intent', 'quoting', 'quote requested')
      ledger.executions.transition(execution.id, 'quoting', 'quoted', 'quote received', {
        quoteId,
        quote: { quoteId, amountOut: String(event.side === 'buy' ? event.stock : event.asset) },
        ...(event.marketPrice === undefined
          ? {}
          : {
              marketPrice: { price: event.marketPrice as Price, atMs: clock, fxRate: 100_000_000n as Price },
            }),
      })
      clock += toBroadcast
      ledger.executions.transition(execution.id, 'quoted', 'submitted', 'execute signed')
      clock += toInclusion
      ledger.atomically(() => {
        ledger.fills.recordFill({
          chainId: chain.chainId,
          txHash: hashOf(`tx:${id}`),
          logIndex: 0,
          executionId: execution.id,
          quoteId,
          taker: getAddress(`0x${'7a'.repeat(20)}`),
          stockToken: token.address,
          assetToken: chain.asset,
          isBuy: event.side === 'buy',
          amountIn: event.side === 'buy' ? event.asset : event.stock,
          amountOut: event.side === 'buy' ? event.stock : event.asset,
          feeAmount: event.fee as AssetAmount,
          blockNumber: BigInt(Math.floor(clock / 1000)),
          blockTime: BigInt(Math.floor(clock / 1000)),
          ticker: token.ticker,
          exchange: token.exchange,
          tokenKind: token.kind,
          assetDecimals: chain.decimals,
        })
        ledger.executions.transition(execution.id, 'submitted', 'confirmed', 'receipt success')
      })
    }
  } finally {
    ledger.close()
  }
}

/** A decimal amount of a unit with `decimals` decimals, as the reports print it when exact. */
export const decimal = (units: bigint, decimals: number) => formatUnits(units, decimals)

function hashOf(text: string): Hex {
  return keccak256(toHex(text))
}
