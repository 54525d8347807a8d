import type { Address, Hex } from 'viem'
import { blockNumberToInteger, canonicalBytes32, safeInteger } from './codec.js'
import type { RepositoryContext } from './context.js'

/** A log of a receipt, as much as decoding an event needs. */
export type OutcomeLog = { address: Address; topics: Hex[]; data: Hex; logIndex: number }

/** The block a transaction was included in, as the transaction manager saw it. */
export type OutcomeBlock = {
  number: bigint
  hash: Hex
  /** The block's timestamp, Unix seconds. */
  timestamp: bigint
  /** When the manager had the block and the receipt in hand (its clock, ms). */
  seenAtMs?: number | undefined
}

/**
 * What the chain decided about one of our transactions, waiting for the engine: `included` (in a
 * block, first time or again after a reorg), `reorged` (a reorg took it out: pending again) or
 * `abandoned` (it will never be mined: refused, or its nonce used by a transaction we did not sign).
 */
export type NewTransactionOutcome =
  | {
      chainId: number
      txHash: Hex
      outcome: 'included'
      receipt: { status: 'success' | 'reverted'; logs: readonly OutcomeLog[] }
      block: OutcomeBlock
    }
  | { chainId: number; txHash: Hex; outcome: 'reorged' | 'abandoned'; reason: string }

/** A stored {@link NewTransactionOutcome}, in the order it was recorded (`id`). */
export type TransactionOutcome = NewTransactionOutcome & { id: number; recordedAtMs: number }

/**
 * The hand-off from the transaction managers to the engine's settlement loop (migration 9). A manager
 * records an outcome in the ledger transaction that moves the transaction's status; the settlement
 * loop reads them in order, writes their consequences and deletes them in one ledger transaction.
 */
export type TransactionOutcomesRepository = {
  /**
   * @example
   * ledger.atomically(() => {
   *   ledger.transactions.markUnmined(chainId, hash, reason)
   *   ledger.transactionOutcomes.recordOutcome({ chainId, txHash: hash, outcome: 'reorged', reason })
   * })
   */
  recordOutcome(outcome: NewTransactionOutcome): TransactionOutcome
  /**
   * The oldest outcomes waiting, in the order they were recorded, of the given chains (all when omitted).
   *
   * @example
   * for (const outcome of ledger.transactionOutcomes.listOutcomes({ limit: 100 })) settle(outcome)
   */
  listOutcomes(options: { chainIds?: readonly number[] | undefined; limit: number }): TransactionOutcome[]
  /** Removes a settled outcome; idempotent. */
  deleteOutcome(id: number): void
  /** How many outcomes wait (a count, nothing read). */
  countOutcomes(): number
  /**
   * Calls `listener` after each outcome is written, inside the ledger transaction that writes it
   * (it may still roll back): the reader's cue to look. Returns its removal.
   *
   * @example
   * const stop = ledger.transactionOutcomes.onRecorded(() => void settlement.settleNow())
   */
  onRecorded(listener: () => void): () => void
}

type OutcomeRow = {
  id: number
  chain_id: number
  tx_hash: string
  outcome: 'included' | 'reorged' | 'abandoned'
  receipt_status: 'success' | 'reverted' | null
  block_number: number | null
  block_hash: string | null
  block_timestamp: number | null
  seen_at_ms: number | null
  logs_json: string | null
  reason: string | null
  recorded_at_ms: number
}

/** Builds the transaction outcomes repository over an open database (see `openLedger`). */
export function createTransactionOutcomesRepository({
  db,
  now,
}: RepositoryContext): TransactionOutcomesRepository {
  const insert = db.prepare<[Omit<OutcomeRow, 'id'>]>(
    `INSERT INTO transaction_outcomes (chain_id, tx_hash, outcome, receipt_status, block_number, block_hash,
       block_timestamp, seen_at_ms, logs_json, reason, recorded_at_ms)
     VALUES (@chain_id, @tx_hash, @outcome, @receipt_status, @block_number, @block_hash, @block_timestamp,
       @seen_at_ms, @logs_json, @reason, @recorded_at_ms)`,
  )
  const selectOldest = db.prepare<[number], OutcomeRow>(
    'SELECT * FROM transaction_outcomes ORDER BY id LIMIT ?',
  )
  const selectOldestOf = db.prepare<[string, number], OutcomeRow>(
    `SELECT * FROM transaction_outcomes WHERE chain_id IN (SELECT value FROM json_each(?)) ORDER BY id LIMIT ?`,
  )
  const remove = db.prepare<[number]>('DELETE FROM transaction_outcomes WHERE id = ?')
  const count = db.prepare<[], { n: number }>('SELECT count(*) AS n FROM transaction_outcomes')
  const listeners = new Set<() => void>()
  return {
    recordOutcome(outcome) {
      const row = rowOf(outcome, now())
      const id = Number(insert.run(row).lastInsertRowid)
      for (const listener of listeners) listener()
      return { ...outcome, id, recordedAtMs: row.recorded_at_ms }
    },
    listOutcomes({ chainIds, limit }) {
      const rows =
        chainIds === undefined ? selectOldest.all(limit) : selectOldestOf.all(JSON.stringify(chainIds), limit)
      return rows.map(outcomeOf)
    },
    deleteOutcome(id) {
      remove.run(id)
    },
    countOutcomes: () => count.get()?.n ?? 0,
    onRecorded(listener) {
      listeners.add(listener)
      return () => {
        listeners.delete(listener)
      }
    },
  }
}

function rowOf(outcome: NewTransactionOutcome, recordedAtMs: number): Omit<OutcomeRow, 'id'> {
  const common = {
    chain_id: safeInteger(outcome.chainId, 'chainId', 1),
    tx_hash: canonicalBytes32(outcome.txHash, 'txHash'),
    outcome: outcome.outcome,
    recorded_at_ms: recordedAtMs,
  }
  if (outcome.outcome !== 'included')
    return {
      ...common,
      receipt_status: null,
      block_number: null,
      block_hash: null,
      block_timestamp: null,
      seen_at_ms: null,
      logs_json: null,
      reason: outcome.reason,
    }
  const { receipt, block } = outcome
  return {
    ...common,
    receipt_status: receipt.status,
    block_number: blockNumberToInteger(block.number, 'block.number'),
    block_hash: canonicalBytes32(block.hash, 'block.hash'),
    block_timestamp: blockNumberToInteger(block.timestamp, 'block.timestamp'),
    seen_at_ms: block.seenAtMs ?? null,
    logs_json: JSON.stringify(
      receipt.logs.map(({ address, topics, data, logIndex }) => ({ address, topics, data, logIndex })),
    ),
    reason: null,
  }
}

function outcomeOf(row: OutcomeRow): TransactionOutcome {
  const common = {
    id: row.id,
    chainId: row.chain_id,
    txHash: row.tx_hash as Hex,
    recordedAtMs: row.recorded_at_ms,
  }
  if (row.outcome !== 'included') return { ...common, outcome: row.outcome, reason: row.reason ?? '' }
  return {
    ...common,
    outcome: 'included',
    receipt: {
      status: row.receipt_status ?? 'reverted',
      logs: JSON.parse(row.logs_json ?? '[]') as OutcomeLog[],
    },
    block: {
      number: BigInt(row.block_number ?? 0),
      hash: row.block_hash as Hex,
      timestamp: BigInt(row.block_timestamp ?? 0),
      seenAtMs: row.seen_at_ms ?? undefined,
    },
  }
}
