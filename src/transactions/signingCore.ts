import type { LocalAccount, WalletClient } from 'viem'
import type { TransactionRecord } from '../store/transactions.js'
import type { FeeSource, Fees } from './fees.js'
import type { ManagerBasics } from './managerCore.js'
import type { BroadcastResult, TransactionRequest } from './types.js'

/**
 * The signing half of a transaction manager, shared with its repairs (refusals, replacements, gap
 * fills): the wallet's critical section, the in-memory next nonce, signing and storing, and the
 * ordered broadcast queue.
 */
export type SigningCore = ManagerBasics & {
  account: LocalAccount
  walletClient: WalletClient
  feeSource: FeeSource
  /** Runs `work` in the wallet's critical section: nonce, signature and ledger commit never interleave. */
  withLock: <T>(work: () => Promise<T>) => Promise<T>
  /**
   * Inside the critical section: signs `requests` at consecutive nonces from `nonce` and stores
   * them all (raw bytes, hashes, nonces, `alsoInLedger`) in ONE ledger transaction.
   */
  signAndStore: (input: {
    requests: readonly TransactionRequest[]
    nonce: number
    fees: Fees
    executionId: number | null
    replaces?: TransactionRecord | undefined
    alsoInLedger?: ((records: readonly TransactionRecord[]) => void) | undefined
  }) => Promise<TransactionRecord[]>
  /** Queues `records` for the node, in order, after everything queued before. */
  broadcast: (records: readonly TransactionRecord[], onHandedOver?: () => void) => Promise<BroadcastResult[]>
}
