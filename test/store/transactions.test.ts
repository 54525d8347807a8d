import Database from 'better-sqlite3'
import { type Hex, keccak256, parseGwei } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import {
  type Ledger,
  migrations,
  openLedger,
  type TransactionKind,
  TransactionRecordError,
} from '../../src/store/index.js'
import { bytes32, ledgerFolder, raceLedgerWorkers } from './ledgerFiles.js'

const folder = ledgerFolder()
const chainId = 31337
// A throwaway key: these transactions are only signed, never sent.
const account = privateKeyToAccount(bytes32('store-test-signer'))

async function signed(nonce: number, label = 'execute'): Promise<{ raw: Hex; hash: Hex }> {
  const raw = await account.signTransaction({
    chainId,
    nonce,
    to: '0x1000000000000000000000000000000000000001',
    data: keccak256(`0x${Buffer.from(label).toString('hex')}`),
    gas: 200_000n,
    maxFeePerGas: parseGwei('2'),
    maxPriorityFeePerGas: parseGwei('1'),
    type: 'eip1559',
  })
  return { raw, hash: keccak256(raw) }
}

/** A nonce taken as the transaction manager's allocator takes one: the ledger's next, or the chain's when ahead. */
function takeNonce(ledger: Ledger, chainPendingNonce = 0): number {
  const nonce = Math.max(ledger.nonces.peekNextNonce(chainId, account.address) ?? 0, chainPendingNonce)
  ledger.nonces.commitNonce(chainId, account.address, nonce)
  return nonce
}

function txError(run: () => unknown): TransactionRecordError {
  try {
    run()
  } catch (error) {
    if (error instanceof TransactionRecordError) return error
    throw error
  }
  throw new Error('expected a TransactionRecordError, nothing was thrown')
}

function executionIn(ledger: Ledger, intentId: string): number {
  return ledger.executions.createExecution({
    intentId,
    chainId,
    ticker: 'AAPL',
    exchange: 0,
    side: 'buy',
    amountIn: '10',
    amountType: 'stocktoken',
  }).id
}

describe('transactions', () => {
  it('stores the signed transaction before broadcast; after a crash and re-open it is found by hash and as pending', async () => {
    const path = folder.path()
    const ledger = openLedger({ path })
    const executionId = executionIn(ledger, 'tx-1')
    const nonce = takeNonce(ledger)
    const { raw, hash } = await signed(nonce)
    const stored = ledger.transactions.recordSignedTransaction({
      executionId,
      chainId,
      from: account.address,
      nonce,
      kind: 'execute',
      hash,
      raw,
    })
    expect(stored).toMatchObject({ status: 'signed', nonce: 0, hash, raw, executionId, blockNumber: null })
    // "Crash" here: the handle is dropped without markBroadcast.
    ledger.close()

    const recovered = openLedger({ path })
    const found = recovered.transactions.getTransaction(chainId, hash)
    expect(found).toMatchObject({ status: 'signed', raw, nonce, kind: 'execute', executionId })
    expect(recovered.transactions.listPendingTransactions(chainId).map((tx) => tx.hash)).toEqual([hash])
    expect(recovered.transactions.listTransactionsForExecution(executionId)).toHaveLength(1)
    // Storing the same signed bytes again (a retried step) is harmless.
    expect(
      recovered.transactions.recordSignedTransaction({
        chainId,
        from: account.address,
        nonce,
        kind: 'execute',
        hash,
        raw,
      }).id,
    ).toBe(stored.id)

    expect(recovered.transactions.markBroadcast(chainId, hash).status).toBe('broadcast')
    expect(recovered.transactions.markBroadcast(chainId, hash).status).toBe('broadcast')
    const mined = recovered.transactions.markMined(chainId, hash, { blockNumber: 77n, status: 'success' })
    expect(mined).toMatchObject({ status: 'mined', blockNumber: 77n, receiptStatus: 'success' })
    expect(recovered.transactions.listPendingTransactions()).toEqual([])
    expect(txError(() => recovered.transactions.markFailed(chainId, hash, 'dropped')).code).toBe(
      'ILLEGAL_TRANSACTION_STATUS',
    )
    recovered.close()
  })

  it('refuses a hash that is not the hash of the raw bytes, and a nonce that was never reserved', async () => {
    const ledger = openLedger({ path: folder.path() })
    const reserved = takeNonce(ledger, 5)
    const { raw } = await signed(reserved)
    const other = await signed(reserved, 'other')
    const mismatch = txError(() =>
      ledger.transactions.recordSignedTransaction({
        chainId,
        from: account.address,
        nonce: reserved,
        kind: 'execute',
        hash: other.hash,
        raw,
      }),
    )
    expect(mismatch.code).toBe('HASH_MISMATCH')
    const future = await signed(reserved + 1)
    const unreserved = txError(() =>
      ledger.transactions.recordSignedTransaction({
        chainId,
        from: account.address,
        nonce: reserved + 1,
        kind: 'execute',
        ...future,
      }),
    )
    expect(unreserved.code).toBe('NONCE_NOT_RESERVED')
    expect(ledger.transactions.listPendingTransactions()).toEqual([])
    ledger.close()
  })

  it('never lets two live transactions share a nonce, whatever their kinds; a replacement takes it over', async () => {
    const path = folder.path()
    const ledger = openLedger({ path })
    const nonce = takeNonce(ledger)
    const approve = await signed(nonce, 'approve')
    const execute = await signed(nonce, 'execute')
    const cancel = await signed(nonce, 'cancel')
    const record = (kind: TransactionKind, tx: { raw: Hex; hash: Hex }, replaces?: Hex) =>
      ledger.transactions.recordSignedTransaction({
        chainId,
        from: account.address,
        nonce,
        kind,
        ...tx,
        replaces,
      })
    record('approve', approve)
    const inUse = txError(() => record('execute', execute))
    expect(inUse.code).toBe('NONCE_IN_USE')
    expect(inUse.details.holder).toBe(approve.hash)

    ledger.transactions.markBroadcast(chainId, approve.hash)
    const replacement = record('cancel', cancel, approve.hash)
    expect(replacement.status).toBe('signed')
    expect(ledger.transactions.getTransaction(chainId, approve.hash)?.status).toBe('replaced')
    expect(replacement.replacesId).toBe(ledger.transactions.getTransaction(chainId, approve.hash)?.id)

    // The original wins the race after all: the chain is the truth, the cancel is the replaced one.
    ledger.transactions.markMined(chainId, approve.hash, { blockNumber: 10n, status: 'success' })
    expect(ledger.transactions.getTransaction(chainId, cancel.hash)?.status).toBe('replaced')
    expect(ledger.transactions.getTransaction(chainId, approve.hash)?.status).toBe('mined')
    // A mined transaction cannot be replaced.
    expect(txError(() => record('execute', execute, approve.hash)).code).toBe('BAD_REPLACEMENT')
    ledger.close()

    // The partial unique index holds below the repository.
    const raw = new Database(path)
    expect(() =>
      raw
        .prepare(
          `INSERT INTO transactions (chain_id, from_address, nonce, kind, hash, raw, status, created_at_ms, updated_at_ms)
           VALUES (?, ?, ?, 'execute', ?, '0x00', 'broadcast', 0, 0)`,
        )
        .run(chainId, account.address, nonce, bytes32('another')),
    ).toThrow(/UNIQUE constraint failed/)
    raw.close()
  })

  it('a failed transaction frees its nonce for a new transaction', async () => {
    const ledger = openLedger({ path: folder.path() })
    const nonce = takeNonce(ledger)
    const first = await signed(nonce, 'first')
    const second = await signed(nonce, 'second')
    ledger.transactions.recordSignedTransaction({
      chainId,
      from: account.address,
      nonce,
      kind: 'approve',
      ...first,
    })
    ledger.transactions.markFailed(chainId, first.hash, 'replacement transaction underpriced')
    expect(txError(() => ledger.transactions.markBroadcast(chainId, first.hash)).code).toBe(
      'ILLEGAL_TRANSACTION_STATUS',
    )
    expect(
      ledger.transactions.recordSignedTransaction({
        chainId,
        from: account.address,
        nonce,
        kind: 'approve',
        ...second,
      }).status,
    ).toBe('signed')
    ledger.close()
  })
})

describe('transactions not final', () => {
  it('lists every version at each nonce not final yet: pending, replaced, mined above the final block; never failed ones', async () => {
    const ledger = openLedger({ path: folder.path() })
    const record = async (kind: TransactionKind, label: string, replaces?: Hex) => {
      const nonce = replaces
        ? (ledger.transactions.getTransaction(chainId, replaces)?.nonce ?? -1)
        : takeNonce(ledger)
      const tx = await signed(nonce, label)
      ledger.transactions.recordSignedTransaction({
        chainId,
        from: account.address,
        nonce,
        kind,
        ...tx,
        replaces,
      })
      ledger.transactions.markBroadcast(chainId, tx.hash)
      return tx.hash
    }
    const labels = (finalBlock: bigint) =>
      ledger.transactions
        .listTransactionsNotFinal(chainId, account.address, finalBlock)
        .map((tx) => `${tx.nonce} ${tx.kind} ${tx.status}`)
    expect(labels(0n)).toEqual([])
    const approve = await record('approve', 'approve-0')
    ledger.transactions.markMined(chainId, approve, { blockNumber: 5n, status: 'success' })
    const execute = await record('execute', 'execute-1')
    ledger.transactions.markMined(chainId, execute, { blockNumber: 9n, status: 'success' })
    const pending = await record('execute', 'execute-2')
    await record('cancel', 'cancel-2', pending)
    // Above block 9 everything mined is final, and nonce 2 is pending: its execute may still win.
    expect(labels(9n)).toEqual(['2 execute replaced', '2 cancel broadcast'])
    expect(labels(6n)).toEqual(['1 execute mined', '2 execute replaced', '2 cancel broadcast'])
    expect(labels(4n)).toEqual([
      '0 approve mined',
      '1 execute mined',
      '2 execute replaced',
      '2 cancel broadcast',
    ])
    // A refused transaction never lands: left out, and with nothing pending, only the mined count.
    const refused = await record('approve', 'approve-3')
    ledger.transactions.markFailed(chainId, refused, 'insufficient funds')
    expect(labels(6n)).toEqual(['1 execute mined', '2 execute replaced', '2 cancel broadcast'])
    ledger.close()
  })
})

describe('nonces', () => {
  const address = account.address

  it('are taken in order and remembered across re-opens, per chain and address', () => {
    const path = folder.path()
    const first = openLedger({ path })
    expect(first.nonces.peekNextNonce(chainId, address)).toBeUndefined()
    for (const nonce of [0, 1, 2]) first.nonces.commitNonce(chainId, address, nonce)
    // Committing an older nonce again never moves the next one back.
    first.nonces.commitNonce(chainId, address, 1)
    first.close()
    const second = openLedger({ path })
    expect(second.nonces.peekNextNonce(chainId, address)).toBe(3)
    expect(second.nonces.peekNextNonce(1, address)).toBeUndefined()
    expect(second.nonces.peekNextNonce(chainId, address.toLowerCase() as Hex)).toBe(3)
    second.close()
  })

  it('rewinds only the last nonce taken, and only while no stored transaction that may land holds it', async () => {
    const ledger = openLedger({ path: folder.path() })
    const a = takeNonce(ledger)
    const b = takeNonce(ledger)
    expect(ledger.nonces.rewindNextNonce(chainId, address, a)).toBe(false)
    expect(ledger.nonces.rewindNextNonce(chainId, address, b)).toBe(true)
    expect(takeNonce(ledger)).toBe(b)

    const tx = await signed(b)
    ledger.transactions.recordSignedTransaction({ chainId, from: address, nonce: b, kind: 'execute', ...tx })
    // Signed but maybe sent before a crash: it blocks the rewind.
    expect(ledger.nonces.rewindNextNonce(chainId, address, b)).toBe(false)
    ledger.transactions.markFailed(chainId, tx.hash, 'node refused it')
    expect(ledger.nonces.rewindNextNonce(chainId, address, b)).toBe(true)
    expect(ledger.nonces.rewindNextNonce(2, address, 0)).toBe(false)
    ledger.close()
  })

  it('two processes creating the ledger and committing nonces at once: migrated once, the highest kept', async () => {
    // Not created beforehand: both workers may create and migrate it at the same time.
    const path = folder.path()
    const [a, b] = await raceLedgerWorkers<number[]>(
      'commit',
      path,
      [String(chainId), address, '0', '150'],
      [String(chainId), address, '1', '150'],
    )
    expect([...(a ?? []), ...(b ?? [])].sort((x, y) => x - y)).toEqual(
      Array.from({ length: 300 }, (_, i) => i),
    )
    const ledger = openLedger({ path })
    expect(ledger.nonces.peekNextNonce(chainId, address)).toBe(300)
    expect(ledger.database.prepare('SELECT count(*) FROM schema_migrations').pluck().get()).toBe(
      migrations.length,
    )
    ledger.close()
  })
})
