import type { Hex, PublicClient } from 'viem'
import type { Ledger } from '../store/openLedger.js'
import type { TransactionRecord } from '../store/transactions.js'
import type { EarlyReceipts } from './earlyReceipts.js'
import type { NonceAllocator } from './nonceAllocator.js'
import type { BroadcastResult, TransactionManagerEvent, TransactionManagerSettings } from './types.js'

/** What every part of one transaction manager shares: its wallet, ledger, settings and nonce. */
export type ManagerBasics = {
  chainId: number
  address: `0x${string}`
  ledger: Ledger
  settings: TransactionManagerSettings
  emit: (event: TransactionManagerEvent) => void
  counters: { gapsFilled: number; replacements: number; rebroadcasts: number; reorgs: number }
  /** The wallet's nonces: the one owner of which nonce the next transaction takes. */
  nonces: NonceAllocator
  /** When each transaction was last handed to the node, ms (in memory: after a restart, from the first check). */
  lastSentAt: Map<Hex, number>
  /** Transactions in the broadcast queue, not yet answered by the node: the queue sends them, nobody else. */
  sending: ReadonlySet<Hex>
}

/**
 * What the manager's recovery and its followers of the chain (blocks, reorgs, pending checks) see of
 * it: the ledger and the chain, and the manager's own moves, each of which takes the wallet's
 * critical section itself.
 */
export type ManagerCore = ManagerBasics & {
  publicClient: PublicClient
  now: () => number
  timeToLandMs: () => number
  /** Awaited before the inclusions of new blocks are recorded (the manager's parameter of that name). */
  beforeInclusions: () => Promise<void>
  /** A speed-up (same call) or cancel (self-transfer) at `current`'s nonce with higher fees; undefined when not possible now. */
  replace: (
    current: TransactionRecord,
    kind: 'speed-up' | 'cancel',
    reason: string,
  ) => Promise<TransactionRecord | undefined>
  fillGap: (nonce: number) => Promise<TransactionRecord>
  rebroadcast: (record: TransactionRecord, reason: string) => Promise<BroadcastResult>
  onReceipt: (tx: TransactionRecord) => void
  /**
   * Receipts asked for right after our transactions were accepted (a chain that mines at once has
   * them by the time the block watcher reports their block): taken once by the inclusion.
   */
  earlyReceipts: EarlyReceipts
  /** Writes the broadcasts accepted and not yet marked; call inside a ledger transaction about to commit. */
  markBroadcasts: () => void
  signal: AbortSignal
}

/**
 * One of the loops a transaction manager is made of (inclusions, reorgs, pending checks), each
 * following the chain and the ledger on its own and handing off through the ledger.
 */
export type ManagerLoop = {
  start(): void
  /** Stops it; resolves once its current pass ended. */
  stop(): Promise<void>
}
