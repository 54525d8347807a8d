import { formatPrice } from '../../domain/units.js'
import type { ExecutionOutcome } from '../../engine/createEngine.js'

/** An execution as `GET /v1/swaps/:id` returns it: amounts as decimal strings, times in ISO 8601. */
export type ExecutionView = {
  executionId: number
  intentId: string
  state: string
  /** The reason of the last state change (why a swap was rejected, expired or failed). */
  reason: string
  quoteId: string | null
  chainId: number
  ticker: string
  exchange: number
  side: 'buy' | 'sell'
  /** Natural units, as requested. */
  amountIn: string
  amountType: 'stablecoin' | 'stocktoken'
  /** In the market's currency, as requested; `null` without a limit. */
  limitPrice: string | null
  transactions: { kind: string; hash: string; nonce: number; status: string }[]
  /** Base units: stock (whole shares or 1e18 units) and asset, as the settlement event has them. */
  fills: { txHash: string; logIndex: number; amountIn: string; amountOut: string; feeAmount: string }[]
  createdAt: string
  updatedAt: string
}

/**
 * The public view of an execution: what it was asked, where it is, its transactions (never their
 * signed bytes) and its fills.
 *
 * @example
 * toExecutionView(engine.outcome(12))
 * // { executionId: 12, intentId: 'api:order-1', state: 'confirmed', fills: [{ amountIn: '999000000', … }], … }
 */
export function toExecutionView(outcome: ExecutionOutcome): ExecutionView {
  const { execution, transactions, fills } = outcome
  return {
    executionId: execution.id,
    intentId: execution.intentId,
    state: execution.state,
    reason: execution.reason,
    quoteId: execution.quoteId,
    chainId: execution.chainId,
    ticker: execution.ticker,
    exchange: execution.exchange,
    side: execution.side,
    amountIn: execution.amountIn,
    amountType: execution.amountType,
    limitPrice: execution.limitPrice === null ? null : formatPrice(execution.limitPrice),
    transactions: transactions.map((transaction) => ({
      kind: transaction.kind,
      hash: transaction.hash,
      nonce: transaction.nonce,
      status: transaction.status,
    })),
    fills: fills.map((fill) => ({
      txHash: fill.txHash,
      logIndex: fill.logIndex,
      amountIn: fill.amountIn.toString(),
      amountOut: fill.amountOut.toString(),
      feeAmount: fill.feeAmount.toString(),
    })),
    createdAt: new Date(execution.createdAtMs).toISOString(),
    updatedAt: new Date(execution.updatedAtMs).toISOString(),
  }
}
