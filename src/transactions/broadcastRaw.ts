import { BaseError, type Hex, type WalletClient } from 'viem'
import { sendRawTransaction } from 'viem/actions'
import { isTransportFailure } from '../chain/isTransportFailure.js'
import type { TransactionRecord } from '../store/transactions.js'
import { failpoint } from './failpoints.js'
import type { BroadcastResult } from './types.js'

/** What the node said to a raw transaction. */
export type RawBroadcastOutcome =
  /** Accepted, or it had it already. */
  | { outcome: 'accepted' }
  /** The nonce is used (by this transaction, mined since, or by another): the chain decides. */
  | { outcome: 'nonce-used'; error: string }
  /** No answer (connection refused, reset, timed out): it may or may not have arrived. */
  | { outcome: 'no-answer'; error: string }
  /** A replacement offering too little over the transaction it replaces. */
  | { outcome: 'underpriced'; error: string }
  /** Refused for good (funds, gas, malformed): it will never be mined. */
  | { outcome: 'refused'; error: string }

/**
 * Sends signed bytes with `eth_sendRawTransaction` (never signs: the same bytes can only ever be
 * the same transaction) and classifies the node's answer.
 *
 * @example
 * const sent = await broadcastRaw(walletClient, record.raw)
 * if (sent.outcome === 'refused') console.log(sent.error)
 */
export async function broadcastRaw(client: WalletClient, raw: Hex): Promise<RawBroadcastOutcome> {
  try {
    await sendRawTransaction(client, { serializedTransaction: raw })
    return { outcome: 'accepted' }
  } catch (error) {
    const message = error instanceof BaseError ? error.shortMessage : String(error)
    const details = error instanceof BaseError ? `${message} ${error.details}` : message
    if (/already known|already imported|known transaction|already exists/i.test(details))
      return { outcome: 'accepted' }
    if (/nonce too low|nonce has already been used|NonceTooLow/i.test(details))
      return { outcome: 'nonce-used', error: message }
    if (/underpriced|replacement fee too low|fee too low to replace/i.test(details))
      return { outcome: 'underpriced', error: message }
    // Not a viem error at all (a bug, a socket torn down): it may have arrived; the checks decide.
    if (!(error instanceof BaseError) || isTransportFailure(error))
      return { outcome: 'no-answer', error: message }
    // The node's own words (viem's short message alone reads "Transaction creation failed."):
    // the operator needs "insufficient funds" or "max fee per gas less than block base fee".
    return { outcome: 'refused', error: error.details ? `${message} ${error.details}` : message }
  }
}

/**
 * Hands one stored record to the node and says what became of it; a refusal is returned, not
 * acted on. Steps: `sending` as it leaves, `broadcast` once accepted; `lastSentAt` keeps when it
 * was sent (accepted, or perhaps arrived) for the stuck-transaction checks.
 *
 * @example
 * const result = await sendRecord({ walletClient, record, now: Date.now, lastSentAt })
 */
export async function sendRecord(input: {
  walletClient: WalletClient
  record: TransactionRecord
  now: () => number
  lastSentAt: Map<Hex, number>
  onStep?: ((step: { step: 'sending' | 'broadcast'; tx: TransactionRecord }) => void) | undefined
}): Promise<BroadcastResult> {
  const { record, lastSentAt, onStep } = input
  const atMs = input.now()
  onStep?.({ step: 'sending', tx: record })
  const sent = await broadcastRaw(input.walletClient, record.raw)
  if (sent.outcome === 'accepted') {
    failpoint(record.kind === 'approve' ? 'approve-broadcast' : 'broadcast')
    onStep?.({ step: 'broadcast', tx: record })
    lastSentAt.set(record.hash, atMs)
    return { status: 'broadcast', atMs }
  }
  if (sent.outcome === 'refused' || (sent.outcome === 'underpriced' && record.replacesId !== null))
    return { status: 'refused', error: sent.error }
  // No answer, or the nonce is used: the transaction may be on chain; the checks decide.
  lastSentAt.set(record.hash, atMs)
  return { status: 'unknown', error: sent.error, atMs }
}
