import type { TransactionReceipt } from 'viem'
import type { Ledger } from '../store/openLedger.js'
import type { TransactionRecord } from '../store/transactions.js'
import type { InclusionBlock } from './types.js'

// What the chain decided about a transaction, written for the engine in the ledger transaction
// that moves the transaction's status: the transaction manager never calls into the engine. The
// engine's settlement loop reads these rows (src/engine/settlement.ts).

/**
 * `tx` is in `block`: its receipt's status and logs are kept for the engine to write the fill.
 *
 * @example
 * ledger.atomically(() => recordIncluded(ledger, ledger.transactions.markMined(chainId, hash, receipt), receipt, block))
 */
export function recordIncluded(
  ledger: Ledger,
  tx: TransactionRecord,
  receipt: Pick<TransactionReceipt, 'status' | 'logs'>,
  block: InclusionBlock,
): void {
  ledger.transactionOutcomes.recordOutcome({
    chainId: tx.chainId,
    txHash: tx.hash,
    outcome: 'included',
    receipt: {
      status: receipt.status,
      logs: receipt.logs.map((log) => ({
        address: log.address,
        topics: log.topics,
        data: log.data,
        logIndex: log.logIndex,
      })),
    },
    block,
  })
}

/** A reorg took `tx` out of the chain: it is pending again. */
export function recordReorged(ledger: Ledger, tx: TransactionRecord, reason: string): void {
  ledger.transactionOutcomes.recordOutcome({
    chainId: tx.chainId,
    txHash: tx.hash,
    outcome: 'reorged',
    reason,
  })
}

/**
 * `tx` will never be mined: the node refused it, or its nonce was used by a transaction this ledger
 * does not know. (A transaction replaced by one of ours is not abandoned: its replacement is
 * included instead.)
 */
export function recordAbandoned(ledger: Ledger, tx: TransactionRecord, reason: string): void {
  ledger.transactionOutcomes.recordOutcome({
    chainId: tx.chainId,
    txHash: tx.hash,
    outcome: 'abandoned',
    reason,
  })
}
