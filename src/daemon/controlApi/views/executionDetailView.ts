import type { ExecutionEvent, ExecutionRecord } from '../../../store/executionRecord.js'
import type { FillRecord } from '../../../store/fills.js'
import type { TransactionRecord } from '../../../store/transactionRecord.js'
import type { ExecutionDetailView } from '../contract.js'
import { toExecutionView } from './executionView.js'

const isoTime = (ms: number) => new Date(ms).toISOString()

/**
 * `GET /v1/executions/:id`'s view: the execution with its timeline (every state change and why),
 * its transactions with where they are on chain (never their signed bytes) and its fills, also
 * those a reorg reversed.
 *
 * @example
 * const id = 12
 * toExecutionDetailView({
 *   execution: ledger.executions.getExecution(id),
 *   events: ledger.executions.listExecutionEvents(id),
 *   transactions: ledger.transactions.listTransactionsForExecution(id),
 *   fills: ledger.fills.listFills({ executionId: id, includeReversed: true }),
 * }).events.map((event) => event.to) // ['intent', 'quoting', 'quoted', 'submitted', 'confirmed']
 */
export function toExecutionDetailView(parts: {
  execution: ExecutionRecord
  events: readonly ExecutionEvent[]
  transactions: readonly TransactionRecord[]
  fills: readonly FillRecord[]
}): ExecutionDetailView {
  const { execution, events, transactions, fills } = parts
  // The summary counts live fills only, as GET /v1/swaps/:id does; the detail lists reversed ones too.
  const live = fills.filter((fill) => fill.reversedAtMs === null)
  const summary = toExecutionView({ execution, transactions: [...transactions], fills: live })
  return {
    ...summary,
    events: events.map((event) => ({
      id: event.id,
      from: event.from,
      to: event.to,
      reason: event.reason,
      quoteId: event.quoteId,
      at: isoTime(event.atMs),
    })),
    transactions: transactions.map(toTransactionView),
    fills: fills.map(toFillView),
  }
}

/**
 * A stored transaction as the control API shows it in full: where it is on chain, never its
 * signed bytes.
 *
 * @example
 * toTransactionView(ledger.transactions.listTransactionsForExecution(12)[0]).blockNumber // '65'
 */
export function toTransactionView(
  transaction: TransactionRecord,
): ExecutionDetailView['transactions'][number] {
  return {
    kind: transaction.kind,
    hash: transaction.hash,
    nonce: transaction.nonce,
    status: transaction.status,
    chainId: transaction.chainId,
    from: transaction.from,
    replacesId: transaction.replacesId,
    blockNumber: transaction.blockNumber === null ? null : transaction.blockNumber.toString(),
    blockHash: transaction.blockHash,
    receiptStatus: transaction.receiptStatus,
    error: transaction.error,
    createdAt: isoTime(transaction.createdAtMs),
    updatedAt: isoTime(transaction.updatedAtMs),
  }
}

/**
 * A fill as the control API shows it in full: amounts in base units as decimal strings, its tokens,
 * its block, and whether a reorg reversed it.
 *
 * @example
 * toFillView(ledger.fills.listFills({ executionId: 12 })[0]).stockAmount // '4'
 */
export function toFillView(fill: FillRecord): ExecutionDetailView['fills'][number] {
  return {
    txHash: fill.txHash,
    logIndex: fill.logIndex,
    amountIn: fill.amountIn.toString(),
    amountOut: fill.amountOut.toString(),
    feeAmount: fill.feeAmount.toString(),
    quoteId: fill.quoteId,
    tokenKind: fill.tokenKind,
    stockToken: fill.stockToken,
    assetToken: fill.assetToken,
    assetDecimals: fill.assetDecimals,
    stockAmount: fill.stockAmount.toString(),
    assetAmount: fill.assetAmount.toString(),
    blockNumber: fill.blockNumber.toString(),
    blockHash: fill.blockHash,
    recordedAt: isoTime(fill.recordedAtMs),
    reversedAt: fill.reversedAtMs === null ? null : isoTime(fill.reversedAtMs),
    reversalReason: fill.reversalReason,
  }
}
