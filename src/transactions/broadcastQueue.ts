import PQueue from 'p-queue'
import type { Hex, WalletClient } from 'viem'
import type { TransactionRecord } from '../store/transactions.js'
import { sendRecord } from './broadcastRaw.js'
import type { BroadcastResult } from './types.js'

/** One wallet's sends to the node, one bundle at a time, in the order they were signed. */
export type BroadcastQueue = {
  /**
   * Queues `records` (one bundle, consecutive nonces) after everything queued before, and sends
   * them at once when their turn comes; `onHandedOver` is called then. Resolves with each one's
   * result once the node has answered them all and a refusal has been dealt with.
   */
  send(records: readonly TransactionRecord[], onHandedOver?: () => void): Promise<BroadcastResult[]>
  /** Transactions queued or on the wire, not yet answered by the node: nobody else sends them. */
  readonly sending: ReadonlySet<Hex>
  /** When each transaction was last handed to the node, ms (in memory). */
  readonly lastSentAt: Map<Hex, number>
  /** Bundles waiting for their turn (not counting the one being sent). */
  waiting(): number
  /** Resolves once no bundle waits for its turn. */
  noneWaiting(): Promise<void>
  /** Resolves once everything queued has been sent and answered. */
  idle(): Promise<void>
}

/**
 * The broadcast queue of a transaction manager: bundles leave in signing order, each one's
 * transactions at once, in nonce order on the wire (a node holds a later nonce until the one
 * before it arrives, so an approval and its execute cost one round trip, not two). A dry run
 * sends nothing (`not-sent`).
 *
 * @example
 * const queue = createBroadcastQueue({ walletClient, now: Date.now, dryRun: false, onAccepted, onRefused })
 * const results = await queue.send(records)
 */
export function createBroadcastQueue(parameters: {
  walletClient: WalletClient
  now: () => number
  dryRun: boolean
  onStep?: ((step: { step: 'sending' | 'broadcast'; tx: TransactionRecord }) => void) | undefined
  /** The node accepted these (the block watcher, the ledger's marks, early receipts). */
  onAccepted: (accepted: readonly TransactionRecord[]) => void
  /** The node refused the bundle's `first`-th transaction for good: repair the nonces behind it. */
  onRefused: (
    records: readonly TransactionRecord[],
    results: readonly BroadcastResult[],
    first: number,
  ) => Promise<void>
}): BroadcastQueue {
  const { walletClient, now, onStep } = parameters
  const queue = new PQueue({ concurrency: 1 })
  const sending = new Set<Hex>()
  const lastSentAt = new Map<Hex, number>()
  const sendOne = (record: TransactionRecord) => sendRecord({ walletClient, record, now, lastSentAt, onStep })
  return {
    send(records, onHandedOver) {
      for (const record of records) sending.add(record.hash)
      return queue.add(async () => {
        onHandedOver?.()
        try {
          if (parameters.dryRun) return records.map(() => ({ status: 'not-sent' as const }))
          const results = await Promise.all(records.map(sendOne))
          const accepted = records.filter((_, index) => results[index]?.status === 'broadcast')
          if (accepted.length > 0) parameters.onAccepted(accepted)
          const first = results.findIndex((result) => result.status === 'refused')
          if (first >= 0) await parameters.onRefused(records, results, first)
          return results
        } finally {
          for (const record of records) sending.delete(record.hash)
        }
      })
    },
    sending,
    lastSentAt,
    waiting: () => queue.size,
    noneWaiting: () => queue.onSizeLessThan(1),
    idle: () => queue.onIdle(),
  }
}
