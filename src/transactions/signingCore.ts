import type { Hex, LocalAccount, WalletClient } from 'viem'
import type { Ledger } from '../store/openLedger.js'
import type { TransactionRecord } from '../store/transactions.js'
import type { FeeSource, Fees } from './fees.js'
import type {
  BroadcastResult,
  TransactionManagerEvent,
  TransactionManagerSettings,
  TransactionOutcomeHandler,
  TransactionRequest,
} from './types.js'

/**
 * The signing half of a transaction manager, shared with its repairs (refusals, replacements, gap
 * fills): the wallet's critical section, the in-memory next nonce, signing and storing, and the
 * ordered broadcast queue.
 */
export type SigningCore = {
  chainId: number
  address: `0x${string}`
  ledger: Ledger
  account: LocalAccount
  walletClient: WalletClient
  settings: TransactionManagerSettings
  handler: TransactionOutcomeHandler
  feeSource: FeeSource
  emit: (event: TransactionManagerEvent) => void
  counters: { gapsFilled: number; replacements: number; rebroadcasts: number; reorgs: number }
  /** Runs `work` in the wallet's critical section: nonce, signature and ledger commit never interleave. */
  withLock: <T>(work: () => Promise<T>) => Promise<T>
  nextNonce: () => number | undefined
  setNextNonce: (value: number) => void
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
  broadcast: (records: readonly TransactionRecord[]) => Promise<BroadcastResult[]>
  lastSentAt: Map<Hex, number>
}
