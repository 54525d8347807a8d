import type { Hash } from 'viem'
import { describe, expect, it } from 'vitest'
import { findTransactionAtNonce } from '../../src/chain/findTransactionAtNonce.js'
import { chainWithoutRouter, clientsFor } from '../helpers/localChains.js'
import { fundedWallet, publicClientOf } from './fixtures.js'

// Which mined transaction used a wallet's nonce, on the shared anvil chain (whose other test files
// mine blocks of their own in between): the answer is checked against the receipts of the wallet's
// own sends, read from the node, never against a second search.

const chain = chainWithoutRouter()

/**
 * A fresh wallet that sends `count` self-transfers one after the other, with two empty blocks mined
 * after each (so that the search has blocks without ours on both sides); their receipts, by nonce.
 */
async function walletWithSends(count: number) {
  const wallet = await fundedWallet(chain)
  const { testClient } = clientsFor(chain, chain.roles.deployer.privateKey)
  const receipts: { hash: Hash; blockNumber: bigint; blockHash: Hash }[] = []
  for (let nonce = 0; nonce < count; nonce++) {
    const hash = await wallet.walletClient.sendTransaction({
      to: wallet.account.address,
      value: BigInt(nonce + 1),
      nonce,
    })
    const receipt = await wallet.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
    receipts.push({ hash, blockNumber: receipt.blockNumber, blockHash: receipt.blockHash })
    await testClient.mine({ blocks: 2 })
  }
  return { wallet, receipts }
}

describe('findTransactionAtNonce', () => {
  it('finds the transaction and block of every nonce the wallet used, first, middle and last', async () => {
    const { wallet, receipts } = await walletWithSends(5)
    for (const [nonce, expected] of receipts.entries())
      expect(
        await findTransactionAtNonce(publicClientOf(chain), { address: wallet.account.address, nonce }),
        `nonce ${nonce}`,
      ).toEqual(expected)
  })

  it('is undefined for a nonce not used yet (the next one, and beyond)', async () => {
    const { wallet } = await walletWithSends(2)
    const address = wallet.account.address
    expect(await findTransactionAtNonce(publicClientOf(chain), { address, nonce: 2 })).toBeUndefined()
    expect(await findTransactionAtNonce(publicClientOf(chain), { address, nonce: 40 })).toBeUndefined()
    // A wallet that never sent anything.
    const idle = await fundedWallet(chain)
    expect(
      await findTransactionAtNonce(publicClientOf(chain), { address: idle.account.address, nonce: 0 }),
    ).toBeUndefined()
  })

  it('searches from `fromBlock`: the block that used the nonce itself, or any block before it', async () => {
    const { wallet, receipts } = await walletWithSends(3)
    const address = wallet.account.address
    const [, second] = receipts
    if (!second) throw new Error('no second send')
    for (const fromBlock of [second.blockNumber, second.blockNumber - 1n, 1n])
      expect(
        await findTransactionAtNonce(publicClientOf(chain), { address, nonce: 1, fromBlock }),
        `from block ${fromBlock}`,
      ).toEqual(second)
  })
})
