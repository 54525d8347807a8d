import type { LocalAccount, WalletClient } from 'viem'
import type { TransactionRecord } from '../store/transactions.js'
import type { FeeSource } from './fees.js'
import type { ManagerBasics } from './managerCore.js'
import type { Signer } from './signAndStore.js'
import type { BroadcastResult } from './types.js'
import type { WalletLock } from './walletLock.js'

/**
 * The signing half of a transaction manager, shared with its repairs (refusals, replacements, gap
 * fills) and its wallet turns: the wallet's critical section, the in-memory next nonce, signing and
 * storing, and the ordered broadcast queue.
 */
export type SigningCore = ManagerBasics & {
  account: LocalAccount
  walletClient: WalletClient
  feeSource: FeeSource
  /** The wallet's critical section: nonce, signature and ledger commit never interleave. */
  lock: WalletLock
  /** Signs and stores, inside the critical section. */
  signer: Signer
  /** Queues `records` for the node, in order, after everything queued before. */
  broadcast: (records: readonly TransactionRecord[], onHandedOver?: () => void) => Promise<BroadcastResult[]>
}
