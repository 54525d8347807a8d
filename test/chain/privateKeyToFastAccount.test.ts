import fc from 'fast-check'
import { bytesToHex, keccak256, parseTransaction, recoverTransactionAddress, toHex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { privateKeyToFastAccount } from '../../src/chain/privateKeyToFastAccount.js'

describe('privateKeyToFastAccount', () => {
  it("signs transactions to the very bytes viem's account signs (awaited or synchronously), and they recover to its address", async () => {
    const privateKey = generatePrivateKey()
    const viemAccount = privateKeyToAccount(privateKey)
    const fast = privateKeyToFastAccount(privateKey)
    expect(fast.address).toBe(viemAccount.address)
    expect(fast.publicKey).toBe(viemAccount.publicKey)
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          nonce: fc.nat({ max: 1_000_000 }),
          gas: fc.bigInt({ min: 21_000n, max: 30_000_000n }),
          maxFeePerGas: fc.bigInt({ min: 1n, max: 10n ** 12n }),
          data: fc.uint8Array({ maxLength: 300 }),
          chainId: fc.integer({ min: 1, max: 2 ** 31 }),
        }),
        async ({ nonce, gas, maxFeePerGas, data, chainId }) => {
          const transaction = {
            chainId,
            type: 'eip1559' as const,
            to: viemAccount.address,
            data: bytesToHex(data),
            value: 0n,
            nonce,
            gas,
            maxFeePerGas,
            maxPriorityFeePerGas: maxFeePerGas / 2n,
          }
          const raw = await fast.signTransaction(transaction)
          expect(raw).toBe(await viemAccount.signTransaction(transaction))
          // The transaction manager's synchronous path: the same bytes.
          expect(fast.signTransactionSync(transaction)).toBe(raw)
          expect(await recoverTransactionAddress({ serializedTransaction: raw as `0x02${string}` })).toBe(
            viemAccount.address,
          )
          expect(parseTransaction(raw).nonce).toBe(nonce)
        },
      ),
      { numRuns: 40 },
    )
  })

  it("signs hashes as viem does; messages and typed data are viem's own", async () => {
    const privateKey = generatePrivateKey()
    const viemAccount = privateKeyToAccount(privateKey)
    const fast = privateKeyToFastAccount(privateKey)
    const hash = keccak256(toHex('stockroute'))
    expect(await fast.sign({ hash })).toBe(await viemAccount.sign({ hash }))
    expect(await fast.signMessage({ message: 'login' })).toBe(
      await viemAccount.signMessage({ message: 'login' }),
    )
  })
})
