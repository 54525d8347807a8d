import { keccak256Fast } from '@stockroute/client/domain/keccak256Fast.js'
import type { Hex, LocalAccount } from 'viem'
import { signsSynchronously } from '../chain/privateKeyToFastAccount.js'
import type { Ledger } from '../store/openLedger.js'
import type { TransactionRecord } from '../store/transactions.js'
import { TransactionManagerError } from './errors.js'
import { failpoint } from './failpoints.js'
import type { Fees } from './fees.js'
import type { NonceAllocator } from './nonceAllocator.js'
import type { SigningFence } from './signingFence.js'
import type { SignedBundle, TransactionRequest } from './types.js'

/** What to sign: `requests` at consecutive nonces from `nonce`, with `fees`. */
export type SignInput = {
  requests: readonly TransactionRequest[]
  nonce: number
  fees: Fees
  executionId: number | null
  replaces?: TransactionRecord | undefined
}

/**
 * Where a transaction is signed and stored, for one wallet on one chain. A transaction is stored
 * (raw bytes, hash, nonce, deadline) in the ledger transaction that takes its nonce
 * (nonceAllocator.ts) before any broadcast, so that a crash at any instant leaves either nothing or
 * a stored transaction that recovery finishes. Nothing is signed while the ledger has a storage
 * fault. Used inside the wallet's critical section only.
 */
export type Signer = {
  /** Signs `input.requests`; stores nothing. */
  sign(input: SignInput): Promise<SignedBundle>
  /**
   * Stores `bundle` and records its nonces as taken, in the caller's ledger transaction when there
   * is one (else in one of its own). Call {@link Signer.committed} once that transaction committed.
   */
  store(bundle: SignedBundle): TransactionRecord[]
  /** After the commit that stored `records`: the next nonce moves past them. */
  committed(bundle: SignedBundle, records: readonly TransactionRecord[]): void
  /** Signs and stores in one ledger transaction of its own (repairs: replacements, gap fills). */
  signAndStore(input: SignInput): Promise<TransactionRecord[]>
}

/**
 * @example
 * const signer = createSigner({ chainId, account, ledger, nonces })
 * const records = await signer.signAndStore({ requests, nonce, fees, executionId })
 */
export function createSigner(parameters: {
  chainId: number
  account: LocalAccount
  ledger: Ledger
  nonces: NonceAllocator
  /** Cluster mode: the wallet's lease, checked before every signature. */
  fence?: SigningFence | undefined
  onSigned?: ((tx: TransactionRecord) => void) | undefined
}): Signer {
  const { chainId, account, ledger, nonces, fence } = parameters
  const storeRows = (bundle: SignedBundle) =>
    bundle.requests.map((request, offset) =>
      ledger.transactions.recordSignedTransaction({
        executionId: bundle.executionId ?? undefined,
        chainId,
        from: account.address,
        nonce: bundle.nonce + offset,
        kind: request.kind,
        hash: keccak256Fast(bundle.raws[offset] as Hex),
        raw: bundle.raws[offset] as Hex,
        replaces: bundle.replaces?.hash,
        deadlineMs: request.deadlineMs,
        fenceToken: bundle.fenceToken,
      }),
    )
  const signer: Signer = {
    async sign(input) {
      assertWritable(ledger, chainId)
      // Cluster mode: no signature without the wallet's lease (throws LEASE_NOT_HELD).
      const fenceToken = fence?.tokenForSigning()
      const { requests, nonce, fees } = input
      const transactions = requests.map((request, offset) => ({
        chainId,
        type: 'eip1559' as const,
        to: request.to,
        data: request.data,
        value: 0n,
        nonce: nonce + offset,
        gas: request.gas,
        ...fees,
      }))
      // The daemon's signer signs without an await: the critical section then runs in one stretch,
      // and no other execution's work (a burst has plenty) slips in. Other accounts are awaited.
      const raws: Hex[] = []
      if (signsSynchronously(account))
        for (const transaction of transactions) raws.push(account.signTransactionSync(transaction))
      else for (const transaction of transactions) raws.push(await account.signTransaction(transaction))
      failpoint('signed')
      return { nonce, requests, raws, executionId: input.executionId, replaces: input.replaces, fenceToken }
    },
    store(bundle) {
      assertWritable(ledger, chainId)
      const write = () => {
        nonces.record(bundle.nonce, bundle.requests.length)
        return storeRows(bundle)
      }
      // In the caller's transaction: no savepoint of its own (one per execute, on the hot path);
      // a failing row fails the caller's whole commit, which is what a bundle needs anyway.
      return ledger.database.inTransaction ? write() : ledger.atomically(write)
    },
    committed(bundle, records) {
      nonces.advance(bundle.nonce, bundle.requests.length)
      for (const record of records) parameters.onSigned?.(record)
    },
    async signAndStore(input) {
      const bundle = await signer.sign(input)
      const records = nonces.take(bundle.nonce, bundle.requests.length, () => storeRows(bundle))
      for (const record of records) parameters.onSigned?.(record)
      return records
    },
  }
  return signer
}

/** Throws when the ledger has a storage fault: nothing may be signed that cannot be stored. */
export function assertWritable(ledger: Ledger, chainId: number): void {
  const fault = ledger.storageFault
  if (fault)
    throw new TransactionManagerError({
      code: 'STORAGE_FAULT',
      shortMessage: `Chain ${chainId}: nothing is signed while the ledger has a storage fault (${fault.reason}): ${fault.remedy}`,
      details: { chainId },
    })
}
