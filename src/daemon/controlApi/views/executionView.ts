import { formatPrice } from '@stockroute/client/domain/unitStrings.js'
import type { ExecutionOutcome } from '../../../engine/index.js'
import type { ExecutionView } from '../contract.js'

/**
 * The public view of an execution: what it was asked, where it is, its transactions (never their
 * signed bytes) and its fills; amounts as decimal strings, times in ISO 8601.
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
    strategy: execution.strategy,
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
