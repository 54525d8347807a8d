import {
  decodeSignedTransaction,
  type ExecutionOutcome,
  readStoredQuote,
  type StoredQuote,
} from '../../../engine/index.js'
import type { ExecutionRecord } from '../../../store/executionRecord.js'
import type { TransactionRecord } from '../../../store/transactionRecord.js'
import type { SwapExecutionView } from '../contract.js'
import { toFillView, toTransactionView } from './executionDetailView.js'
import { toExecutionView } from './executionView.js'

/**
 * `GET /v1/swaps/:id`'s view of an outcome: the execution, the quote it holds (never its
 * signature), each transaction in full with what it calls (decoded from the signed bytes, which
 * are never shown) and each live fill in full. A client prints a swap's result from it alone.
 *
 * @example
 * toSwapExecutionView(engine.outcome(12)).transactions[0]
 * // { kind: 'approve', hash: '0x…', nonce: 7, status: 'mined', blockNumber: '65', approval: { spender: '0x…', amount: '912631720' }, … }
 */
export function toSwapExecutionView(outcome: ExecutionOutcome): SwapExecutionView {
  const { execution, transactions, fills } = outcome
  const quote = quoteOf(execution)
  return {
    ...toExecutionView(outcome),
    quote: quote
      ? {
          quoteId: quote.quoteId,
          chainId: execution.chainId,
          ticker: quote.ticker,
          exchange: quote.exchange,
          tokenKind: quote.tokenKind,
          side: quote.isBuy ? 'buy' : 'sell',
          amountType: quote.amountType,
          stockToken: quote.stockToken,
          assetToken: quote.assetToken,
          assetDecimals: quote.assetDecimals,
          amountIn: quote.amountIn.toString(),
          amountInUsed: quote.amountInUsed.toString(),
          amountOut: quote.amountOut.toString(),
          feeAmount: quote.feeAmount.toString(),
          price: quote.price.toString(),
          expiresAt: quote.expiresAt,
        }
      : null,
    transactions: transactions.map((transaction) => ({
      ...toTransactionView(transaction),
      ...callOf(transaction),
    })),
    fills: fills.map((fill) => ({
      ...toFillView(fill),
      ticker: fill.ticker,
      side: fill.isBuy ? 'buy' : 'sell',
    })),
  }
}

/** The execution's current quote; none when it has none or the ledger's form of it is unreadable. */
function quoteOf(execution: ExecutionRecord): StoredQuote | undefined {
  try {
    return readStoredQuote(execution)
  } catch {
    return undefined // a quote written by another version: the execution is still shown
  }
}

/** Where a signed transaction goes, its gas limit and what an approve allows, from its bytes. */
function callOf(
  transaction: TransactionRecord,
): Pick<SwapExecutionView['transactions'][number], 'to' | 'gasLimit' | 'approval'> {
  try {
    const decoded = decodeSignedTransaction(transaction)
    return {
      to: decoded.to ?? null,
      gasLimit: decoded.gasLimit === undefined ? null : decoded.gasLimit.toString(),
      approval: decoded.approve
        ? { spender: decoded.approve.spender, amount: decoded.approve.amount.toString() }
        : null,
    }
  } catch {
    return { to: null, gasLimit: null, approval: null } // bytes that do not parse: the rest still shows
  }
}
