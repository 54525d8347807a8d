import { type Hex, keccak256, parseGwei } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { openLedger } from '../../src/store/index.js'
import { createNonceAllocator } from '../../src/transactions/nonceAllocator.js'
import { bytes32, ledgerFolder } from '../store/ledgerFiles.js'

// The one owner of a wallet's nonces, over a real ledger file: seeded from the chain and the
// ledger, taken with the transactions that use them, given back only when nothing may land there.

const folder = ledgerFolder()
const chainId = 31337
const account = privateKeyToAccount(bytes32('nonce-allocator-test-signer'))

async function signedAt(nonce: number): Promise<{ raw: Hex; hash: Hex }> {
  const raw = await account.signTransaction({
    chainId,
    nonce,
    to: '0x1000000000000000000000000000000000000001',
    gas: 21_000n,
    maxFeePerGas: parseGwei('2'),
    maxPriorityFeePerGas: parseGwei('1'),
    type: 'eip1559',
  })
  return { raw, hash: keccak256(raw) }
}

describe('createNonceAllocator', () => {
  it('seeds from the highest of the chain, the ledger and its transactions, and remembers what it took', async () => {
    const path = folder.path()
    const ledger = openLedger({ path })
    const nonces = createNonceAllocator(ledger, chainId, account.address)
    expect(nonces.next()).toBeUndefined()
    expect(nonces.seed(0)).toBe(0)
    const tx = await signedAt(0)
    const taken = nonces.take(0, 3, () => {
      ledger.transactions.recordSignedTransaction({
        chainId,
        from: account.address,
        nonce: 0,
        kind: 'approve',
        ...tx,
      })
      return 'stored'
    })
    expect(taken).toBe('stored')
    expect(nonces.next()).toBe(3)
    ledger.close()
    // After a restart: the chain counts only 1 pending, the ledger knows 3 were taken.
    const reopened = openLedger({ path })
    const again = createNonceAllocator(reopened, chainId, account.address)
    expect(again.seed(1)).toBe(3)
    // Another program sent from the wallet: the chain is ahead, and wins.
    expect(again.seed(9)).toBe(9)
    reopened.close()
  })

  it('takes nothing when the ledger transaction fails: the next nonce stays', () => {
    const ledger = openLedger({ path: folder.path() })
    const nonces = createNonceAllocator(ledger, chainId, account.address)
    nonces.seed(4)
    expect(() =>
      nonces.take(4, 2, () => {
        throw new Error('storage fault')
      }),
    ).toThrow('storage fault')
    expect(nonces.next()).toBe(4)
    expect(ledger.nonces.peekNextNonce(chainId, account.address)).toBeUndefined()
    ledger.close()
  })

  it('gives back only the last nonce taken, and only while no transaction that may land holds it', async () => {
    const ledger = openLedger({ path: folder.path() })
    const nonces = createNonceAllocator(ledger, chainId, account.address)
    nonces.seed(0)
    nonces.take(0, 2, () => undefined)
    expect(nonces.giveBack(0)).toBe(false)
    expect(nonces.giveBack(1)).toBe(true)
    expect(nonces.next()).toBe(1)
    const tx = await signedAt(1)
    nonces.take(1, 1, () =>
      ledger.transactions.recordSignedTransaction({
        chainId,
        from: account.address,
        nonce: 1,
        kind: 'execute',
        ...tx,
      }),
    )
    // Signed, maybe sent before a crash: it holds the nonce.
    expect(nonces.giveBack(1)).toBe(false)
    ledger.transactions.markFailed(chainId, tx.hash, 'the node refused it')
    expect(nonces.giveBack(1)).toBe(true)
    expect(nonces.next()).toBe(1)
    ledger.close()
  })
})
