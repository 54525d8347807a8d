import { keccak256Fast } from '@stockroute/client/domain/keccak256Fast.js'
import { signDigest } from '@stockroute/client/domain/signDigest.js'
import {
  type Hex,
  hexToBytes,
  type LocalAccount,
  type PrivateKeyAccount,
  type Signature,
  serializeSignature,
  serializeTransaction,
  type TransactionSerializable,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'

/** A private-key account that can also sign a transaction without awaiting anything. */
export type FastAccount = PrivateKeyAccount & {
  /**
   * The transaction signed now, with viem's default serializer: the same bytes as
   * `signTransaction`. The wallet's critical section signs with it, so that no other work of the
   * process runs between its nonce and its ledger commit (an await would let it in).
   */
  signTransactionSync(transaction: TransactionSerializable): Hex
}

/**
 * Whether `account` signs synchronously ({@link FastAccount}); other accounts (viem's own, a
 * remote signer) are awaited.
 *
 * @example
 * const raw = signsSynchronously(account) ? account.signTransactionSync(tx) : await account.signTransaction(tx)
 */
export function signsSynchronously(account: LocalAccount): account is LocalAccount & FastAccount {
  return typeof (account as Partial<FastAccount>).signTransactionSync === 'function'
}

/**
 * viem's private-key account with its hashes signed by libsecp256k1 (tiny-secp256k1, compiled to
 * WebAssembly) instead of noble's JavaScript: a signature costs about a third of the time, and a
 * trading process signs an approval and an execute per trade inside the wallet's critical section.
 * Both sign deterministically (RFC 6979, low s), so the signed bytes are the same as viem's; message
 * and typed-data signing (rare: the service's wallet login) stay viem's own.
 *
 * @example
 * const account = privateKeyToFastAccount(process.env.STOCKROUTE_PRIVATE_KEY as Hex)
 * const raw = await account.signTransaction({ chainId: 1, type: 'eip1559', to, nonce: 0, gas: 21_000n, maxFeePerGas, maxPriorityFeePerGas })
 */
export function privateKeyToFastAccount(privateKey: Hex): FastAccount {
  const account = privateKeyToAccount(privateKey)
  const key = hexToBytes(privateKey)
  const signHash = (hash: Hex): Signature => signDigest(hash, key)
  // As viem signs: a blob transaction's signature covers its body without the sidecars.
  const signableOf = <transaction extends TransactionSerializable>(transaction: transaction) =>
    transaction.type === 'eip4844' ? { ...transaction, sidecars: false as const } : transaction
  const signTransactionSync = (transaction: TransactionSerializable): Hex =>
    serializeTransaction(transaction, signHash(keccak256Fast(serializeTransaction(signableOf(transaction)))))
  return {
    ...account,
    async sign({ hash }) {
      return serializeSignature(signHash(hash))
    },
    async signTransaction(transaction, { serializer } = {}) {
      if (!serializer) return signTransactionSync(transaction)
      const signature = signHash(keccak256Fast(await serializer(signableOf(transaction))))
      return await serializer(transaction, signature)
    },
    signTransactionSync,
  } as FastAccount
}
