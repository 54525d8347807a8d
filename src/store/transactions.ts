import type { Address, Hex } from 'viem'
import {
  blockNumberToInteger,
  canonicalAddress,
  canonicalBytes32,
  LedgerInputError,
  safeInteger,
} from './codec.js'
import type { RepositoryContext } from './context.js'
import {
  checkNewSignedTransaction,
  type NewSignedTransaction,
  type TransactionRecord,
  TransactionRecordError,
  type TransactionRow,
  toRecord,
} from './transactionRecord.js'

export {
  type NewSignedTransaction,
  type TransactionKind,
  type TransactionRecord,
  TransactionRecordError,
  type TransactionRecordErrorCode,
  type TransactionStatus,
} from './transactionRecord.js'
/**
 * The transactions repository: every signed transaction is stored here BEFORE it is broadcast,
 * so that after a crash the engine finds it (by hash, by nonce) and reconciles it with the chain
 * instead of signing again.
 */
export type TransactionsRepository = {
  /**
   * Stores a signed transaction with status `signed`. Call it before `eth_sendRawTransaction`.
   * Storing the same hash again returns the stored row (idempotent). With `replaces`, the replaced
   * transaction becomes `replaced` in the same write. Throws {@link TransactionRecordError}.
   *
   * @example
   * const hash = keccak256(raw)
   * ledger.transactions.recordSignedTransaction({ executionId, chainId, from, nonce, kind: 'execute', hash, raw })
   * await client.sendRawTransaction({ serializedTransaction: raw })
   * ledger.transactions.markBroadcast(chainId, hash)
   */
  recordSignedTransaction(transaction: NewSignedTransaction): TransactionRecord
  /**
   * `signed` → `broadcast`. Idempotent; a transaction already mined or replaced stays as it is.
   *
   * @example
   * ledger.transactions.markBroadcast(31337, hash).status // 'broadcast'
   */
  markBroadcast(chainId: number, hash: Hex): TransactionRecord
  /**
   * Records the receipt: status `mined` with its block and receipt status, whatever the status was
   * (the chain is the truth). Any other live transaction of the same nonce becomes `replaced`.
   *
   * @example
   * ledger.transactions.markMined(31337, hash, { blockNumber: receipt.blockNumber, blockHash: receipt.blockHash, status: receipt.status })
   */
  markMined(
    chainId: number,
    hash: Hex,
    receipt: { blockNumber: bigint; blockHash?: Hex | undefined; status: 'success' | 'reverted' },
  ): TransactionRecord
  /**
   * `mined` → `broadcast`: a reorg removed its block, so it is pending again (the reason is kept in
   * `error` until it is mined again). Throws `ILLEGAL_TRANSACTION_STATUS` when it is not mined.
   *
   * @example
   * ledger.transactions.markUnmined(31337, hash, 'a reorg removed block 41')
   */
  markUnmined(chainId: number, hash: Hex, reason: string): TransactionRecord
  /**
   * `signed`/`broadcast`/`replaced` → `dropped`: a transaction this ledger did not sign used its
   * nonce, so it can never be mined. Throws `ILLEGAL_TRANSACTION_STATUS` for a mined transaction.
   *
   * @example
   * ledger.transactions.markDropped(31337, hash, 'nonce 4 used by 0xab… (another program)')
   */
  markDropped(chainId: number, hash: Hex, reason: string): TransactionRecord
  /**
   * `signed`/`broadcast`/`replaced` → `failed`: the transaction is known never to reach the chain
   * (refused by the node, dropped), so its nonce no longer counts as used. Throws
   * `ILLEGAL_TRANSACTION_STATUS` for a mined transaction.
   *
   * @example
   * ledger.transactions.markFailed(31337, hash, 'nonce too low')
   */
  markFailed(chainId: number, hash: Hex, error: string): TransactionRecord
  /**
   * @example
   * ledger.transactions.getTransaction(31337, hash)?.status
   */
  getTransaction(chainId: number, hash: Hex): TransactionRecord | undefined
  /**
   * Whether a transaction with `hash` is stored: {@link getTransaction} without reading the row (the
   * wallet turn's check, on the hot path, that a bundle's commit happened).
   *
   * @example
   * ledger.transactions.isStored(31337, hash) // true once its commit is done
   */
  isStored(chainId: number, hash: Hex): boolean
  /**
   * An execution's transactions, oldest first (approvals, execute, cancels).
   *
   * @example
   * ledger.transactions.listTransactionsForExecution(executionId).map((tx) => tx.kind) // ['approve', 'execute']
   */
  listTransactionsForExecution(executionId: number): TransactionRecord[]
  /**
   * The transactions of several executions at once, by execution then oldest first (one indexed
   * query for a page of executions).
   *
   * @example
   * ledger.transactions.listTransactionsOfExecutions([12, 13]).map((tx) => [tx.executionId, tx.kind])
   * // [[12, 'approve'], [12, 'execute'], [13, 'execute']]
   */
  listTransactionsOfExecutions(executionIds: readonly number[]): TransactionRecord[]
  /**
   * Transactions still `signed` or `broadcast`, oldest first: what recovery checks against the chain.
   *
   * @example
   * for (const tx of ledger.transactions.listPendingTransactions(31337)) await reconcile(tx)
   */
  listPendingTransactions(chainId?: number): TransactionRecord[]
  /**
   * One wallet's transactions still `signed` or `broadcast`, by nonce then age: what its
   * transaction manager follows.
   *
   * @example
   * ledger.transactions.listUnresolvedTransactions(31337, address).map((tx) => tx.nonce) // [7, 7, 8]
   */
  listUnresolvedTransactions(chainId: number, from: Address): TransactionRecord[]
  /**
   * Every transaction of one wallet at a nonce that is not final yet, by nonce then age: each version
   * at a nonce with a transaction still `signed` or `broadcast`, or one `mined` above `finalBlock`
   * (a reorg may still take it out). Replaced versions are included (a cancel may lose the race to
   * the transaction it replaces); `failed` and `dropped` ones are not (they never land). What an
   * allowance plan must not count on.
   *
   * @example
   * ledger.transactions.listTransactionsNotFinal(31337, address, head - 2n).map((tx) => [tx.nonce, tx.kind])
   * // [[7, 'execute'], [7, 'cancel'], [8, 'approve']]
   */
  listTransactionsNotFinal(chainId: number, from: Address, finalBlock: bigint): TransactionRecord[]
  /** How many of one wallet's transactions are still `signed` or `broadcast` (a count, nothing read). */
  countUnresolvedTransactions(chainId: number, from: Address): number
  /**
   * Every transaction stored at one nonce of a wallet, oldest first.
   *
   * @example
   * ledger.transactions.listTransactionsAtNonce(31337, address, 7).map((tx) => tx.status) // ['replaced', 'mined']
   */
  listTransactionsAtNonce(chainId: number, from: Address, nonce: number): TransactionRecord[]
  /**
   * Transactions mined at or above a block, oldest block first: what a reorg may have moved.
   *
   * @example
   * ledger.transactions.listMinedTransactions(31337, { fromBlock: 41n })
   */
  listMinedTransactions(chainId: number, range: { fromBlock: bigint }): TransactionRecord[]
  /**
   * The highest nonce of a wallet held by a transaction that reached or may reach the chain (any
   * status but `failed`), if any: the ledger's part in seeding the next nonce.
   *
   * @example
   * ledger.transactions.highestLiveNonce(31337, address) // 12
   */
  highestLiveNonce(chainId: number, from: Address): number | undefined
}

/** Builds the transactions repository over an open database (see `openLedger`). */
export function createTransactionsRepository({ db, now }: RepositoryContext): TransactionsRepository {
  const statements = prepareTransactionStatements(db)
  const {
    selectByHash,
    selectHashExists,
    selectUnresolved,
    countUnresolved,
    selectNotFinal,
    selectAtNonce,
    selectMinedFrom,
    selectHighestLive,
    selectByExecution,
    selectByExecutions,
    selectPending,
  } = statements
  const writing: TransactionWriting = { statements, now }
  const record = db.transaction(
    (input: NewSignedTransaction): TransactionRecord => recordSigned(writing, input),
  )
  const broadcast = db.transaction(
    (chainId: number, hash: Hex): TransactionRecord => markSignedBroadcast(writing, chainId, hash),
  )
  const mined = db.transaction(
    (
      chainId: number,
      hash: Hex,
      blockNumber: number,
      blockHash: Hex | null,
      status: 'success' | 'reverted',
    ) => markReceipt(writing, chainId, hash, blockNumber, blockHash, status),
  )
  const unmined = db.transaction(
    (chainId: number, hash: Hex, reason: string): TransactionRecord =>
      markReorgedOut(writing, chainId, hash, reason),
  )
  const dropped = db.transaction(
    (chainId: number, hash: Hex, reason: string): TransactionRecord =>
      markDroppedIn(writing, chainId, hash, reason),
  )
  const failed = db.transaction(
    (chainId: number, hash: Hex, error: string): TransactionRecord =>
      markFailedIn(writing, chainId, hash, error),
  )

  return {
    recordSignedTransaction: (transaction) => record.immediate(transaction),
    markBroadcast: (chainId, hash) =>
      broadcast.immediate(safeInteger(chainId, 'chainId', 1), canonicalBytes32(hash, 'hash')),
    markMined(chainId, hash, receipt) {
      if (receipt.status !== 'success' && receipt.status !== 'reverted')
        throw new LedgerInputError('receipt.status', receipt.status, "must be 'success' or 'reverted'.")
      return mined.immediate(
        safeInteger(chainId, 'chainId', 1),
        canonicalBytes32(hash, 'hash'),
        blockNumberToInteger(receipt.blockNumber, 'receipt.blockNumber'),
        receipt.blockHash === undefined ? null : canonicalBytes32(receipt.blockHash, 'receipt.blockHash'),
        receipt.status,
      )
    },
    markUnmined: (chainId, hash, reason) =>
      unmined.immediate(safeInteger(chainId, 'chainId', 1), canonicalBytes32(hash, 'hash'), String(reason)),
    markDropped: (chainId, hash, reason) =>
      dropped.immediate(safeInteger(chainId, 'chainId', 1), canonicalBytes32(hash, 'hash'), String(reason)),
    listUnresolvedTransactions: (chainId, from) =>
      selectUnresolved.all(chainId, canonicalAddress(from, 'from')).map(toRecord),
    listTransactionsNotFinal: (chainId, from, finalBlock) =>
      selectNotFinal
        .all({
          chain: chainId,
          from: canonicalAddress(from, 'from'),
          final: finalBlock < 0n ? -1 : blockNumberToInteger(finalBlock, 'finalBlock'),
        })
        .map(toRecord),
    countUnresolvedTransactions: (chainId, from) =>
      countUnresolved.get(chainId, canonicalAddress(from, 'from'))?.n ?? 0,
    listTransactionsAtNonce: (chainId, from, nonce) =>
      selectAtNonce.all(chainId, canonicalAddress(from, 'from'), safeInteger(nonce, 'nonce')).map(toRecord),
    listMinedTransactions: (chainId, range) =>
      selectMinedFrom.all(chainId, blockNumberToInteger(range.fromBlock, 'fromBlock')).map(toRecord),
    highestLiveNonce(chainId, from) {
      const nonce = selectHighestLive.get(chainId, canonicalAddress(from, 'from'))?.nonce
      return nonce === null || nonce === undefined ? undefined : nonce
    },
    markFailed: (chainId, hash, error) =>
      failed.immediate(safeInteger(chainId, 'chainId', 1), canonicalBytes32(hash, 'hash'), String(error)),
    getTransaction(chainId, hash) {
      const row = selectByHash.get(chainId, canonicalBytes32(hash, 'hash'))
      return row ? toRecord(row) : undefined
    },
    isStored: (chainId, hash) => selectHashExists.get(chainId, canonicalBytes32(hash, 'hash')) !== undefined,
    listTransactionsForExecution: (executionId) => selectByExecution.all(executionId).map(toRecord),
    listTransactionsOfExecutions: (executionIds) =>
      executionIds.length === 0
        ? []
        : selectByExecutions.all(JSON.stringify(executionIds.filter(Number.isSafeInteger))).map(toRecord),
    listPendingTransactions(chainId) {
      const chain = chainId ?? null
      return selectPending.all(chain, chain).map(toRecord)
    },
  }
}

/** The statements of the transactions repository, prepared once per connection. */
function prepareTransactionStatements(db: RepositoryContext['db']) {
  return { ...prepareTransactionReads(db), ...prepareTransactionWrites(db) }
}

function prepareTransactionReads(db: RepositoryContext['db']) {
  return {
    selectByHash: db.prepare<[number, string], TransactionRow>(
      'SELECT * FROM transactions WHERE chain_id = ? AND hash = ?',
    ),
    selectHashExists: db.prepare<[number, string], { found: 1 }>(
      'SELECT 1 AS found FROM transactions WHERE chain_id = ? AND hash = ?',
    ),
    selectById: db.prepare<[number], TransactionRow>('SELECT * FROM transactions WHERE id = ?'),
    selectLiveHolder: db.prepare<[number, string, number], TransactionRow>(
      `SELECT * FROM transactions WHERE chain_id = ? AND from_address = ? AND nonce = ?
       AND status IN ('signed', 'broadcast', 'mined')`,
    ),
    selectNextNonce: db.prepare<[number, string], { next_nonce: number }>(
      'SELECT next_nonce FROM nonces WHERE chain_id = ? AND address = ?',
    ),
    selectFence: db.prepare<[number, string], { token: number; node_id: string }>(
      'SELECT token, node_id FROM wallet_fences WHERE chain_id = ? AND wallet = ?',
    ),
    selectUnresolved: db.prepare<[number, string], TransactionRow>(
      `SELECT * FROM transactions WHERE chain_id = ? AND from_address = ? AND status IN ('signed', 'broadcast')
     ORDER BY nonce, id`,
    ),
    countUnresolved: db.prepare<[number, string], { n: number }>(
      `SELECT count(*) AS n FROM transactions WHERE chain_id = ? AND from_address = ? AND status IN ('signed', 'broadcast')`,
    ),
    // Nonces are mined in order: every nonce above the lowest one not final is not final either.
    selectNotFinal: db.prepare<[{ chain: number; from: string; final: number }], TransactionRow>(
      `SELECT * FROM transactions WHERE chain_id = @chain AND from_address = @from
       AND status NOT IN ('failed', 'dropped')
       AND nonce >= min(
         coalesce((SELECT min(nonce) FROM transactions WHERE chain_id = @chain AND from_address = @from
                     AND status IN ('signed', 'broadcast')), 9007199254740991),
         coalesce((SELECT min(nonce) FROM transactions WHERE chain_id = @chain AND status = 'mined'
                     AND block_number > @final AND from_address = @from), 9007199254740991))
     ORDER BY nonce, id`,
    ),
    selectAtNonce: db.prepare<[number, string, number], TransactionRow>(
      'SELECT * FROM transactions WHERE chain_id = ? AND from_address = ? AND nonce = ? ORDER BY id',
    ),
    selectMinedFrom: db.prepare<[number, number], TransactionRow>(
      `SELECT * FROM transactions WHERE chain_id = ? AND status = 'mined' AND block_number >= ? ORDER BY block_number, id`,
    ),
    selectHighestLive: db.prepare<[number, string], { nonce: number | null }>(
      `SELECT max(nonce) AS nonce FROM transactions WHERE chain_id = ? AND from_address = ? AND status <> 'failed'`,
    ),
    selectByExecution: db.prepare<[number], TransactionRow>(
      'SELECT * FROM transactions WHERE execution_id = ? ORDER BY id',
    ),
    selectByExecutions: db.prepare<[string], TransactionRow>(
      'SELECT * FROM transactions WHERE execution_id IN (SELECT value FROM json_each(?)) ORDER BY execution_id, id',
    ),
    selectPending: db.prepare<[number | null, number | null], TransactionRow>(
      `SELECT * FROM transactions WHERE status IN ('signed', 'broadcast') AND (? IS NULL OR chain_id = ?) ORDER BY id`,
    ),
  }
}

function prepareTransactionWrites(db: RepositoryContext['db']) {
  return {
    insert: db.prepare<[NewTransactionRow]>(
      `INSERT INTO transactions (execution_id, chain_id, from_address, nonce, kind, hash, raw, status, replaces_id,
       deadline_ms, fence_token, created_at_ms, updated_at_ms)
     VALUES (@execution_id, @chain_id, @from_address, @nonce, @kind, @hash, @raw, 'signed', @replaces_id,
       @deadline_ms, @fence_token, @now, @now)`,
    ),
    setStatus: db.prepare<[string, string | null, number, number]>(
      'UPDATE transactions SET status = ?, error = ?, updated_at_ms = ? WHERE id = ?',
    ),
    setMined: db.prepare<[number, string | null, string, number, number]>(
      `UPDATE transactions SET status = 'mined', block_number = ?, block_hash = ?, receipt_status = ?, error = NULL,
       updated_at_ms = ? WHERE id = ?`,
    ),
    setUnmined: db.prepare<[string, number, number]>(
      `UPDATE transactions SET status = 'broadcast', block_number = NULL, block_hash = NULL, receipt_status = NULL,
       error = ?, updated_at_ms = ? WHERE id = ?`,
    ),
    replaceOthers: db.prepare<[string, number, number, string, number, number]>(
      `UPDATE transactions SET status = 'replaced', error = ?, updated_at_ms = ?
     WHERE chain_id = ? AND from_address = ? AND nonce = ? AND id <> ? AND status IN ('signed', 'broadcast', 'mined')`,
    ),
  }
}

type NewTransactionRow = {
  execution_id: number | null
  chain_id: number
  from_address: string
  nonce: number
  kind: string
  hash: string
  raw: string
  replaces_id: number | null
  deadline_ms: number | null
  fence_token: number | null
  now: number
}

/** What the repository's writes work with: its statements and the ledger's clock. */
type TransactionWriting = {
  statements: ReturnType<typeof prepareTransactionStatements>
  now: () => number
}

function mustGetTransaction({ statements }: TransactionWriting, chainId: number, hash: Hex): TransactionRow {
  const row = statements.selectByHash.get(chainId, hash)
  if (!row)
    throw new TransactionRecordError({
      code: 'TRANSACTION_NOT_FOUND',
      shortMessage: `No transaction ${hash} on chain ${chainId} in this ledger: store it with recordSignedTransaction before sending it.`,
      details: { chainId, hash },
    })
  return row
}

function reread({ statements }: TransactionWriting, id: number): TransactionRecord {
  return toRecord(statements.selectById.get(id) as TransactionRow)
}

/** `recordSignedTransaction`, inside its write transaction: idempotent by hash, at a nonce taken. */
function recordSigned(writing: TransactionWriting, input: NewSignedTransaction): TransactionRecord {
  const { statements, now } = writing
  const { chainId, from, nonce, hash, executionId, raw, deadlineMs, fenceToken } =
    checkNewSignedTransaction(input)

  const existing = statements.selectByHash.get(chainId, hash)
  if (existing) return toRecord(existing)
  if (fenceToken !== null) assertFenceHeld(writing, chainId, from, fenceToken)

  assertNonceTaken(writing, chainId, from, nonce)
  const holder = statements.selectLiveHolder.get(chainId, from, nonce)
  let replacesId: number | null = null
  if (input.replaces !== undefined) {
    replacesId = replaceAtNonce(writing, { chainId, from, nonce, hash }, input.replaces)
  } else if (holder) {
    throw new TransactionRecordError({
      code: 'NONCE_IN_USE',
      shortMessage: `Nonce ${nonce} of ${from} on chain ${chainId} is held by ${holder.status} transaction ${holder.hash}: take a new nonce, or pass replaces: '${holder.hash}' to replace it.`,
      details: { chainId, from, nonce, holder: holder.hash, holderStatus: holder.status },
    })
  }
  const result = statements.insert.run({
    execution_id: executionId,
    chain_id: chainId,
    from_address: from,
    nonce,
    kind: input.kind,
    hash,
    raw,
    replaces_id: replacesId,
    deadline_ms: deadlineMs,
    fence_token: fenceToken,
    now: now(),
  })
  return reread(writing, Number(result.lastInsertRowid))
}

/**
 * Cluster mode: a transaction signed under a lease is stored only while no newer lease has taken
 * its wallet over on this ledger (docs/scale-out.md). In the storing transaction, so that a daemon
 * that froze and woke never adds a transaction after the one that took over raised the fence.
 */
function assertFenceHeld({ statements }: TransactionWriting, chainId: number, from: string, token: number) {
  const fence = statements.selectFence.get(chainId, from)
  if (fence && fence.token > token)
    throw new TransactionRecordError({
      code: 'STALE_FENCING_TOKEN',
      shortMessage: `Wallet ${from} on chain ${chainId} was taken over by ${fence.node_id} with fencing token ${fence.token}; this transaction was signed under token ${token} and is not stored.`,
      remedy: "This daemon lost the wallet's lease: it must stop driving the wallet (it does so by itself).",
      details: { chainId, from, token, fenceToken: fence.token, fenceNode: fence.node_id },
    })
}

/** A transaction is stored only at a nonce the allocator took (committed in the nonces table). */
function assertNonceTaken({ statements }: TransactionWriting, chainId: number, from: string, nonce: number) {
  const next = statements.selectNextNonce.get(chainId, from)?.next_nonce
  if (next === undefined || nonce >= next)
    throw new TransactionRecordError({
      code: 'NONCE_NOT_RESERVED',
      shortMessage: `Nonce ${nonce} of ${from} on chain ${chainId} was never taken (next: ${next ?? 'none yet'}): take nonces with the transaction manager's allocator (commitNonce in the same ledger transaction) so two transactions never share one.`,
      details: { chainId, from, nonce, nextNonce: next ?? null },
    })
}

/**
 * The transaction `replacement` replaces becomes `replaced`: it must be signed or broadcast, of the
 * same sender and nonce. Returns its id.
 */
function replaceAtNonce(
  { statements, now }: TransactionWriting,
  replacement: { chainId: number; from: string; nonce: number; hash: Hex },
  replacesHash: Hex,
): number {
  const { chainId, from, nonce, hash } = replacement
  const replaces = canonicalBytes32(replacesHash, 'replaces')
  const replaced = statements.selectByHash.get(chainId, replaces)
  if (
    !replaced ||
    replaced.from_address !== from ||
    replaced.nonce !== nonce ||
    (replaced.status !== 'signed' && replaced.status !== 'broadcast')
  )
    throw new TransactionRecordError({
      code: 'BAD_REPLACEMENT',
      shortMessage: `Transaction ${hash} cannot replace ${replaces}: a replacement needs a signed or broadcast transaction of the same chain, sender and nonce (found ${replaced ? `${replaced.status}, nonce ${replaced.nonce}` : 'none'}).`,
      remedy:
        'replace only a signed or broadcast transaction, at its own nonce; store anything else as a new transaction',
      details: { chainId, hash, replaces, found: replaced ? toRecord(replaced) : null },
    })
  statements.setStatus.run('replaced', `replaced by ${hash}`, now(), replaced.id)
  return replaced.id
}

/** `markBroadcast`, inside its write transaction. */
function markSignedBroadcast(writing: TransactionWriting, chainId: number, hash: Hex): TransactionRecord {
  const row = mustGetTransaction(writing, chainId, hash)
  if (row.status === 'failed')
    throw new TransactionRecordError({
      code: 'ILLEGAL_TRANSACTION_STATUS',
      shortMessage: `Transaction ${hash} on chain ${chainId} is marked failed (${row.error ?? 'no reason'}): a transaction marked failed must not be broadcast; sign a new one with a fresh nonce.`,
      details: { chainId, hash, status: row.status },
    })
  if (row.status === 'signed') writing.statements.setStatus.run('broadcast', null, writing.now(), row.id)
  return reread(writing, row.id)
}

/** `markMined`, inside its write transaction: the other live transactions of its nonce are replaced. */
function markReceipt(
  writing: TransactionWriting,
  chainId: number,
  hash: Hex,
  blockNumber: number,
  blockHash: Hex | null,
  status: 'success' | 'reverted',
): TransactionRecord {
  const { statements, now } = writing
  const row = mustGetTransaction(writing, chainId, hash)
  const at = now()
  statements.replaceOthers.run(`nonce used by ${hash}`, at, chainId, row.from_address, row.nonce, row.id)
  statements.setMined.run(blockNumber, blockHash, status, at, row.id)
  return reread(writing, row.id)
}

/** `markUnmined`, inside its write transaction. */
function markReorgedOut(writing: TransactionWriting, chainId: number, hash: Hex, reason: string) {
  const row = mustGetTransaction(writing, chainId, hash)
  if (row.status !== 'mined')
    throw new TransactionRecordError({
      code: 'ILLEGAL_TRANSACTION_STATUS',
      shortMessage: `Transaction ${hash} on chain ${chainId} is ${row.status}, not mined: only a mined transaction can be taken back by a reorg.`,
      remedy:
        'mark it unmined only after it was marked mined; a transaction never mined needs no reorg handling',
      details: { chainId, hash, status: row.status },
    })
  writing.statements.setUnmined.run(reason, writing.now(), row.id)
  return reread(writing, row.id)
}

/** `markDropped`, inside its write transaction: never for a mined transaction. */
function markDroppedIn(writing: TransactionWriting, chainId: number, hash: Hex, reason: string) {
  const row = mustGetTransaction(writing, chainId, hash)
  if (row.status === 'mined')
    throw new TransactionRecordError({
      code: 'ILLEGAL_TRANSACTION_STATUS',
      shortMessage: `Transaction ${hash} on chain ${chainId} is mined in block ${row.block_number}: it cannot be dropped.`,
      remedy: 'if a reorg took its block away, mark it unmined first; otherwise it stays mined',
      details: { chainId, hash, status: row.status },
    })
  if (row.status !== 'dropped' && row.status !== 'failed')
    writing.statements.setStatus.run('dropped', reason, writing.now(), row.id)
  return reread(writing, row.id)
}

/** `markFailed`, inside its write transaction: never for a mined transaction. */
function markFailedIn(writing: TransactionWriting, chainId: number, hash: Hex, error: string) {
  const row = mustGetTransaction(writing, chainId, hash)
  if (row.status === 'mined')
    throw new TransactionRecordError({
      code: 'ILLEGAL_TRANSACTION_STATUS',
      shortMessage: `Transaction ${hash} on chain ${chainId} is mined in block ${row.block_number}: it cannot be marked failed. A reverted transaction is mined with receiptStatus 'reverted'.`,
      details: { chainId, hash, status: row.status },
    })
  if (row.status !== 'failed') writing.statements.setStatus.run('failed', error, writing.now(), row.id)
  return reread(writing, row.id)
}
