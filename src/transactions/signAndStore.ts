import type { Hex, LocalAccount } from 'viem'
import { signsSynchronously } from '../chain/privateKeyToFastAccount.js'
import { keccak256Fast } from '../domain/keccak256Fast.js'
import type { Ledger } from '../store/openLedger.js'
import type { TransactionRecord } from '../store/transactions.js'
import { TransactionManagerError } from './errors.js'
import { failpoint } from './failpoints.js'
import type { NonceAllocator } from './nonceAllocator.js'
import type { SigningCore } from './signingCore.js'

/**
 * Where a transaction is signed and stored: `requests` signed at consecutive nonces from `nonce`,
 * then stored (raw bytes, hash, nonce, deadline) in the ledger transaction that takes the nonces
 * (nonceAllocator.ts), before any broadcast, so that a crash at any instant leaves either nothing
 * or a stored transaction that recovery finishes. Nothing is signed while the ledger has a storage
 * fault. Runs inside the wallet's critical section.
 *
 * @example
 * const signAndStore = createSignAndStore({ chainId, account, ledger, nonces })
 * const records = await signAndStore({ requests, nonce, fees, executionId })
 */
export function createSignAndStore(parameters: {
  chainId: number
  account: LocalAccount
  ledger: Ledger
  nonces: NonceAllocator
  onSigned?: ((tx: TransactionRecord) => void) | undefined
}): SigningCore['signAndStore'] {
  const { chainId, account, ledger, nonces } = parameters
  return async (input) => {
    assertWritable(ledger, chainId)
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
    // The daemon's signer signs without an await: from the kill switch's last read to the commit,
    // the critical section then runs in one stretch, and no other execution's work (a burst has
    // plenty) slips in between. Other accounts are awaited, one transaction after another.
    const raws: Hex[] = []
    if (signsSynchronously(account))
      for (const transaction of transactions) raws.push(account.signTransactionSync(transaction))
    else for (const transaction of transactions) raws.push(await account.signTransaction(transaction))
    failpoint('signed')
    const records = nonces.take(nonce, requests.length, () => {
      const stored = requests.map((request, offset) =>
        ledger.transactions.recordSignedTransaction({
          executionId: input.executionId ?? undefined,
          chainId,
          from: account.address,
          nonce: nonce + offset,
          kind: request.kind,
          hash: keccak256Fast(raws[offset] as Hex),
          raw: raws[offset] as Hex,
          replaces: input.replaces?.hash,
          deadlineMs: request.deadlineMs,
        }),
      )
      input.alsoInLedger?.(stored)
      return stored
    })
    for (const record of records) parameters.onSigned?.(record)
    return records
  }
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
