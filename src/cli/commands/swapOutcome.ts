import type { Address } from 'viem'
import {
  decodeSignedTransaction,
  type ExecutionOutcome,
  readStoredQuote,
  type StoredQuote,
} from '../../engine/index.js'
import type { ExecutionRecord, FillRecord, TransactionRecord } from '../../store/index.js'

/**
 * What `stockroute swap` prints of an execution, whoever holds it: this process's ledger
 * ({@link swapOutcomeOf}) or the daemon's control API (`GET /v1/swaps/:id`, see
 * src/cli/daemon/swapOutcomeOfView.ts). Amounts are bigints in base units.
 */
export type SwapOutcome = {
  execution: Pick<
    ExecutionRecord,
    | 'id'
    | 'intentId'
    | 'state'
    | 'reason'
    | 'quoteId'
    | 'chainId'
    | 'ticker'
    | 'exchange'
    | 'side'
    | 'amountIn'
    | 'amountType'
  >
  /** The quote the execution holds; undefined before its first. */
  quote: SwapOutcomeQuote | undefined
  transactions: SwapOutcomeTransaction[]
  /** Live fills only. */
  fills: SwapOutcomeFill[]
}

/** The parts of the execution's quote the result shows. */
export type SwapOutcomeQuote = Pick<
  StoredQuote,
  'ticker' | 'tokenKind' | 'stockToken' | 'isBuy' | 'amountIn' | 'amountInUsed' | 'amountOut' | 'feeAmount'
>

/** A transaction of the execution, with what it calls (read from its signed bytes). */
export type SwapOutcomeTransaction = Pick<
  TransactionRecord,
  'kind' | 'hash' | 'nonce' | 'status' | 'receiptStatus'
> & {
  /** The token (approve) or the executor (execute). */
  to: Address | undefined
  gasLimit: bigint | undefined
  /** What an approve allows. */
  approve: { spender: Address; amount: bigint } | undefined
}

/** A fill of the execution. */
export type SwapOutcomeFill = Pick<
  FillRecord,
  'txHash' | 'logIndex' | 'amountIn' | 'amountOut' | 'isBuy' | 'ticker' | 'tokenKind'
> & { feeAmount: bigint; stockAmount: bigint; assetAmount: bigint }

/**
 * The {@link SwapOutcome} of an outcome read from the ledger: its current quote parsed, each
 * transaction's call decoded from its signed bytes.
 *
 * @example
 * swapResult(swapOutcomeOf(await engine.execute(intent)), context)
 */
export function swapOutcomeOf(outcome: ExecutionOutcome): SwapOutcome {
  return {
    execution: outcome.execution,
    quote: readStoredQuote(outcome.execution),
    transactions: outcome.transactions.map((transaction) => ({ ...transaction, ...callOf(transaction) })),
    fills: outcome.fills,
  }
}

/** What a stored transaction calls, from its signed bytes; nothing when they do not parse. */
function callOf(transaction: TransactionRecord): Pick<SwapOutcomeTransaction, 'to' | 'gasLimit' | 'approve'> {
  try {
    const { to, gasLimit, approve } = decodeSignedTransaction(transaction)
    return { to, gasLimit, approve }
  } catch {
    return { to: undefined, gasLimit: undefined, approve: undefined }
  }
}
