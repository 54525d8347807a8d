import type { Address, Hex } from 'viem'
import type { SwapExecutionView } from '../../daemon/controlApi/contract.js'
import type { SwapOutcome } from '../commands/swapOutcome.js'

// The schema (swapExecutionSchema) checked every hash and address against its pattern and every
// amount against /^-?\d+$/ before this runs: the casts below name what was checked, BigInt cannot throw.
const hex = (text: string) => text as Hex
const address = (text: string) => text as Address

/**
 * The {@link SwapOutcome} of a `GET /v1/swaps/:id` reply: what `stockroute swap` prints of a swap
 * the daemon executed, read from the control API alone (never from the daemon's ledger file).
 * Amounts become bigints in base units here, where the reply is parsed.
 *
 * @example
 * const view = await client.request('GET', `/v1/swaps/${id}`, { schema: swapExecutionSchema })
 * swapResult(swapOutcomeOfView(view), context)
 */
export function swapOutcomeOfView(view: SwapExecutionView): SwapOutcome {
  const { quote } = view
  return {
    execution: {
      id: view.executionId,
      intentId: view.intentId,
      state: view.state,
      reason: view.reason,
      quoteId: view.quoteId === null ? null : hex(view.quoteId),
      chainId: view.chainId,
      ticker: view.ticker,
      exchange: view.exchange,
      side: view.side,
      amountIn: view.amountIn,
      amountType: view.amountType,
    },
    quote: quote
      ? {
          ticker: quote.ticker,
          tokenKind: quote.tokenKind,
          stockToken: address(quote.stockToken),
          isBuy: quote.side === 'buy',
          amountIn: BigInt(quote.amountIn),
          amountInUsed: BigInt(quote.amountInUsed),
          amountOut: BigInt(quote.amountOut),
          feeAmount: BigInt(quote.feeAmount),
        }
      : undefined,
    transactions: view.transactions.map((transaction) => ({
      kind: transaction.kind,
      hash: hex(transaction.hash),
      nonce: transaction.nonce,
      status: transaction.status,
      receiptStatus: transaction.receiptStatus,
      to: transaction.to === null ? undefined : address(transaction.to),
      gasLimit: transaction.gasLimit === null ? undefined : BigInt(transaction.gasLimit),
      approve: transaction.approval
        ? { spender: address(transaction.approval.spender), amount: BigInt(transaction.approval.amount) }
        : undefined,
    })),
    fills: view.fills.map((fill) => ({
      txHash: hex(fill.txHash),
      logIndex: fill.logIndex,
      ticker: fill.ticker,
      tokenKind: fill.tokenKind,
      isBuy: fill.side === 'buy',
      amountIn: BigInt(fill.amountIn),
      amountOut: BigInt(fill.amountOut),
      feeAmount: BigInt(fill.feeAmount),
      stockAmount: BigInt(fill.stockAmount),
      assetAmount: BigInt(fill.assetAmount),
    })),
  }
}
