import { StockrouteError } from '@stockroute/client/domain/errors.js'
import { keccak256Fast } from '@stockroute/client/domain/keccak256Fast.js'
import type { Address, Hex } from 'viem'
import { canonicalAddress, canonicalBytes32, LedgerInputError, safeInteger } from './codec.js'

// A stored transaction: its kinds, statuses, row and record. The repository is in transactions.ts.
/** What a transaction does for its execution. */
export type TransactionKind = 'approve' | 'execute' | 'cancel' | 'gap-fill'

/**
 * Where a stored transaction is. `signed`: stored, maybe not sent (or sent just before a crash);
 * `broadcast`: the node accepted it; `mined`: a receipt exists (`receiptStatus` says whether it
 * reverted; the nonce is used either way); `failed`: known never to reach the chain (refused by the
 * node), its nonce free again; `replaced`: another transaction of ours took its nonce over;
 * `dropped`: a transaction this ledger did not sign used its nonce. The final ones are mined,
 * replaced, failed and dropped (a reorg can bring a mined one back to `broadcast`).
 */
export type TransactionStatus = 'signed' | 'broadcast' | 'mined' | 'failed' | 'replaced' | 'dropped'

/** A signed transaction to store before it is sent. */
export type NewSignedTransaction = {
  /** The execution it belongs to, if any. */
  executionId?: number | undefined
  chainId: number
  from: Address
  /** A nonce taken through the transaction manager's allocator (committed in the nonces repository). */
  nonce: number
  kind: TransactionKind
  /** keccak256 of `raw`; checked. */
  hash: Hex
  /** The signed, serialized transaction, exactly as it will be sent (`eth_sendRawTransaction`). */
  raw: Hex
  /** The hash of the live transaction of the same nonce this one replaces (a cancel or speed-up). */
  replaces?: Hex | undefined
  /**
   * Unix ms after which its call must not land (an execute's quote expiry and grace): the
   * transaction manager cancels it at its nonce rather than let it land later. None: any time.
   */
  deadlineMs?: number | undefined
  /**
   * Cluster mode: the fencing token of the wallet's lease it was signed under. The ledger refuses
   * it (`STALE_FENCING_TOKEN`) when the wallet's fence holds a newer token: another daemon has
   * taken the wallet over since. None outside cluster mode.
   */
  fenceToken?: number | undefined
}

/**
 * `input`'s fields in the ledger's canonical form, once checked: ids and nonce whole numbers, the
 * addresses and hashes lower-case, `raw` hex whose keccak256 is `hash`. Throws
 * {@link LedgerInputError} or {@link TransactionRecordError} (`HASH_MISMATCH`).
 *
 * @example
 * const { chainId, from, nonce, hash, raw } = checkNewSignedTransaction(input)
 */
export function checkNewSignedTransaction(input: NewSignedTransaction) {
  const chainId = safeInteger(input.chainId, 'chainId', 1)
  const from = canonicalAddress(input.from, 'from')
  const nonce = safeInteger(input.nonce, 'nonce')
  const hash = canonicalBytes32(input.hash, 'hash')
  const executionId =
    input.executionId === undefined ? null : safeInteger(input.executionId, 'executionId', 1)
  if (!['approve', 'execute', 'cancel', 'gap-fill'].includes(input.kind))
    throw new LedgerInputError('kind', input.kind, 'must be approve, execute, cancel or gap-fill.')
  if (typeof input.raw !== 'string' || !/^0x([0-9a-fA-F]{2})+$/.test(input.raw))
    throw new LedgerInputError('raw', input.raw, 'is not a hex-encoded signed transaction.')
  const raw = input.raw.toLowerCase() as Hex
  const computed = keccak256Fast(raw)
  if (computed !== hash)
    throw new TransactionRecordError({
      code: 'HASH_MISMATCH',
      shortMessage: `Transaction hash ${hash} is not keccak256 of its raw bytes (${computed}): store the hash of exactly the bytes you send.`,
      details: { chainId, hash, computed },
    })
  const deadlineMs = input.deadlineMs === undefined ? null : safeInteger(input.deadlineMs, 'deadlineMs', 1)
  const fenceToken = input.fenceToken === undefined ? null : safeInteger(input.fenceToken, 'fenceToken', 1)
  return { chainId, from, nonce, hash, executionId, raw, deadlineMs, fenceToken }
}

/** One stored transaction. */
export type TransactionRecord = {
  id: number
  executionId: number | null
  chainId: number
  from: Address
  nonce: number
  kind: TransactionKind
  hash: Hex
  raw: Hex
  status: TransactionStatus
  /** The id of the transaction this one replaced. */
  replacesId: number | null
  blockNumber: bigint | null
  /** The hash of the block it was mined in (null before migration 3 and while not mined). */
  blockHash: Hex | null
  receiptStatus: 'success' | 'reverted' | null
  error: string | null
  /** Unix ms after which its call must not land; null: any time (see {@link NewSignedTransaction}). */
  deadlineMs: number | null
  /** Cluster mode: the fencing token of the lease it was signed under; null outside cluster mode. */
  fenceToken: number | null
  createdAtMs: number
  updatedAtMs: number
}

/** Stable codes of {@link TransactionRecordError}. */
export type TransactionRecordErrorCode =
  | 'HASH_MISMATCH'
  | 'NONCE_NOT_RESERVED'
  | 'NONCE_IN_USE'
  | 'BAD_REPLACEMENT'
  | 'TRANSACTION_NOT_FOUND'
  | 'ILLEGAL_TRANSACTION_STATUS'
  | 'STALE_FENCING_TOKEN'

/**
 * A transaction could not be stored or updated: its hash is not the hash of its raw bytes, its
 * nonce was never taken or is held by another live transaction (`details.holder`), the
 * transaction it claims to replace does not match, it is unknown, or the status move makes no sense
 * (marking a mined transaction failed), or it was signed under a lease another daemon has since taken
 * over (cluster mode).
 *
 * @example
 * try {
 *   ledger.transactions.recordSignedTransaction(signed)
 * } catch (error) {
 *   if (error instanceof TransactionRecordError && error.code === 'NONCE_IN_USE') takeAnother()
 * }
 */
export class TransactionRecordError extends StockrouteError {
  override name = 'TransactionRecordError'
  override readonly code: TransactionRecordErrorCode
  constructor(parameters: {
    code: TransactionRecordErrorCode
    shortMessage: string
    /** What to do, when `shortMessage` does not say it. */
    remedy?: string | undefined
    details: Readonly<Record<string, unknown>>
  }) {
    super(parameters)
    this.code = parameters.code
  }
}

/** @internal */
export type TransactionRow = {
  id: number
  execution_id: number | null
  chain_id: number
  from_address: string
  nonce: number
  kind: TransactionKind
  hash: string
  raw: string
  status: TransactionStatus
  replaces_id: number | null
  block_number: number | null
  block_hash: string | null
  receipt_status: 'success' | 'reverted' | null
  error: string | null
  deadline_ms: number | null
  /** Null on rows of a ledger before migration 10 read by a query naming its columns. */
  fence_token?: number | null
  created_at_ms: number
  updated_at_ms: number
}

/** @internal */
export function toRecord(row: TransactionRow): TransactionRecord {
  return {
    id: row.id,
    executionId: row.execution_id,
    chainId: row.chain_id,
    from: row.from_address as Address,
    nonce: row.nonce,
    kind: row.kind,
    hash: row.hash as Hex,
    raw: row.raw as Hex,
    status: row.status,
    replacesId: row.replaces_id,
    blockNumber: row.block_number === null ? null : BigInt(row.block_number),
    blockHash: row.block_hash as Hex | null,
    receiptStatus: row.receipt_status,
    error: row.error,
    deadlineMs: row.deadline_ms,
    fenceToken: row.fence_token ?? null,
    createdAtMs: row.created_at_ms,
    updatedAtMs: row.updated_at_ms,
  }
}
