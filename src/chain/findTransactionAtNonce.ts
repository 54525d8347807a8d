import type { Address, Hash, PublicClient } from 'viem'
import { getBlock, getBlockNumber, getTransactionCount } from 'viem/actions'

export type FindTransactionAtNonceParameters = {
  address: Address
  nonce: number
  /** Search from this block (default 0): a block at or before the one that used the nonce. */
  fromBlock?: bigint | undefined
}

/** The mined transaction that used a nonce, or undefined while the nonce is unused. */
export type TransactionAtNonce = { hash: Hash; blockNumber: bigint; blockHash: Hash } | undefined

/**
 * Which transaction used `address`'s `nonce`: a binary search for the first block whose account
 * nonce exceeds it (about log2(blocks) reads of `eth_getTransactionCount` at a block), then that
 * block's transactions. How a transaction manager classifies "nonce too low": ours (mined since)
 * or another program's.
 *
 * @example
 * const found = await findTransactionAtNonce(publicClient, { address, nonce: 7 })
 * found?.hash === stored.hash // ours
 */
export async function findTransactionAtNonce(
  client: PublicClient,
  parameters: FindTransactionAtNonceParameters,
): Promise<TransactionAtNonce> {
  const { address, nonce } = parameters
  const head = await getBlockNumber(client, { cacheTime: 0 })
  const countAt = (blockNumber: bigint) => getTransactionCount(client, { address, blockNumber })
  if ((await countAt(head)) <= nonce) return undefined
  let low = parameters.fromBlock ?? 0n
  let high = head
  if (low > high) low = high
  // Invariant: the nonce is used by block `high`; find the first such block.
  while (low < high) {
    const middle = (low + high) / 2n
    if ((await countAt(middle)) > nonce) high = middle
    else low = middle + 1n
  }
  const block = await getBlock(client, { blockNumber: high, includeTransactions: true })
  const found = block.transactions.find(
    (tx) => tx.from.toLowerCase() === address.toLowerCase() && tx.nonce === nonce,
  )
  if (!found || block.hash === null) return undefined
  return { hash: found.hash, blockNumber: high, blockHash: block.hash }
}
