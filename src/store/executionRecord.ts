// An execution as stored: the record, its patch and event types, and the row mapping. The
// repository is in executions.ts.

import type { ExchangeCode } from '@stockroute/client/domain/markets.js'
import { type AssetAmount, type Price, toAssetAmount, toPrice } from '@stockroute/client/domain/units.js'
import type { Hex } from 'viem'
import { textToUint } from './codec.js'
import type { ExecutionState } from './executionStates.js'

// ---------------------------------------------------------------------------------------------
// Records

/** What an execution was asked to do, as the intent requested it. */
export type NewExecution = {
  /** The intent's id; at most one execution per intent, ever. */
  intentId: string
  chainId: number
  ticker: string
  exchange: ExchangeCode
  side: 'buy' | 'sell'
  /** Natural units exactly as requested ("1000" asset, "0.5" shares): the quote request's `amount_in`. */
  amountIn: string
  /** What `amountIn` counts: the asset (`stablecoin`, buys only) or shares (`stocktoken`). */
  amountType: 'stablecoin' | 'stocktoken'
  /** The worst acceptable price in the market's currency, if the intent has one. */
  limitPrice?: Price | undefined
  /** Reason of the creating event (default `intent recorded`). */
  reason?: string | undefined
  /** The strategy whose intent this is (none for the API, the CLI and library calls). */
  strategy?: string | undefined
}

/** The asset amount a quote commits, with its asset's decimals (for risk limits across chains). */
export type ExecutionNotional = { amount: AssetAmount; decimals: number }

/** One execution as stored. */
export type ExecutionRecord = {
  id: number
  intentId: string
  chainId: number
  ticker: string
  exchange: ExchangeCode
  side: 'buy' | 'sell'
  amountIn: string
  amountType: 'stablecoin' | 'stocktoken'
  limitPrice: Price | null
  /** The strategy whose intent this is, or null. */
  strategy: string | null
  /** The current quote's id: unique among executions, and never reused after being dropped. */
  quoteId: Hex | null
  /** The current quote as JSON, bigints as decimal strings: parse it with the quote's schema. */
  quote: unknown
  notional: ExecutionNotional | null
  /** The market price (market currency) its current quote was compared with, and when; null before. */
  marketPrice: { price: Price; atMs: number } | null
  state: ExecutionState
  /** Moves since creation: every transition is a compare-and-set on (state, version). */
  version: number
  /** The reason of the last transition. */
  reason: string
  createdAtMs: number
  updatedAtMs: number
}

/** Fields a transition may set in the same transaction. `null` clears a field. */
export type ExecutionPatch = {
  /** Attaches a quote id (claimed for this execution forever) or clears it. */
  quoteId?: Hex | null | undefined
  /** The quote's JSON (bigints are stored as decimal strings). */
  quote?: unknown
  notional?: ExecutionNotional | null | undefined
  /**
   * The market price the quote was compared with (reports' slippage against the market), and the
   * FX rate (asset per unit of the market's currency, 1e8) the guard converted it with.
   */
  marketPrice?: { price: Price; atMs: number; fxRate?: Price | undefined } | undefined
  /**
   * When the move happened (Unix ms), if not now: a move written later than it happened, with the
   * commit of the next one (a quote's arrival, stored with the execute it led to), keeps its time.
   */
  atMs?: number | undefined
}

/** One line of an execution's event log. */
export type ExecutionEvent = {
  id: number
  executionId: number
  /** `null` for the creating event. */
  from: ExecutionState | null
  to: ExecutionState
  reason: string
  /** The execution's quote id after the transition. */
  quoteId: Hex | null
  atMs: number
}

/** @internal */
export type ExecutionRow = {
  id: number
  intent_id: string
  chain_id: number
  ticker: string
  exchange: number
  side: 'buy' | 'sell'
  amount_in: string
  amount_type: 'stablecoin' | 'stocktoken'
  limit_price: string | null
  strategy: string | null
  quote_id: string | null
  quote_json: string | null
  notional: string | null
  asset_decimals: number | null
  market_price: string | null
  market_price_at_ms: number | null
  state: ExecutionState
  version: number
  reason: string
  created_at_ms: number
  updated_at_ms: number
}

/** @internal */
export type EventRow = {
  id: number
  execution_id: number
  from_state: ExecutionState | null
  to_state: ExecutionState
  reason: string
  quote_id: string | null
  at_ms: number
}

/** @internal */
export function toRecord(row: ExecutionRow): ExecutionRecord {
  return {
    id: row.id,
    intentId: row.intent_id,
    chainId: row.chain_id,
    ticker: row.ticker,
    exchange: row.exchange as ExchangeCode,
    side: row.side,
    amountIn: row.amount_in,
    amountType: row.amount_type,
    limitPrice:
      row.limit_price === null ? null : toPrice(textToUint(row.limit_price, 'executions.limit_price')),
    strategy: row.strategy,
    quoteId: row.quote_id as Hex | null,
    quote: row.quote_json === null ? null : (JSON.parse(row.quote_json) as unknown),
    notional:
      row.notional === null || row.asset_decimals === null
        ? null
        : {
            amount: toAssetAmount(textToUint(row.notional, 'executions.notional')),
            decimals: row.asset_decimals,
          },
    marketPrice:
      row.market_price === null || row.market_price_at_ms === null
        ? null
        : {
            price: toPrice(textToUint(row.market_price, 'executions.market_price')),
            atMs: row.market_price_at_ms,
          },
    state: row.state,
    version: row.version,
    reason: row.reason,
    createdAtMs: row.created_at_ms,
    updatedAtMs: row.updated_at_ms,
  }
}

/** @internal */
export function toEvent(row: EventRow): ExecutionEvent {
  return {
    id: row.id,
    executionId: row.execution_id,
    from: row.from_state,
    to: row.to_state,
    reason: row.reason,
    quoteId: row.quote_id as Hex | null,
    atMs: row.at_ms,
  }
}
