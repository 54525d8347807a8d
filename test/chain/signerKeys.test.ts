import { secp256k1 } from '@noble/curves/secp256k1'
import fc from 'fast-check'
import { keccak256, recoverPublicKey, toHex } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { rememberSigner, verifyKnownSigner } from '../../src/chain/signerKeys.js'

describe('verifyKnownSigner', () => {
  it('is undefined for a signer whose key was never remembered', async () => {
    const account = privateKeyToAccount(generatePrivateKey())
    const hash = keccak256(toHex('quote'))
    expect(verifyKnownSigner(account.address, hash, await account.sign({ hash }))).toBeUndefined()
  })

  it("agrees with recovery: true for the signer's signatures, false for another hash or another key", async () => {
    const signer = privateKeyToAccount(generatePrivateKey())
    const other = privateKeyToAccount(generatePrivateKey())
    const first = keccak256(toHex('first'))
    rememberSigner(
      signer.address,
      await recoverPublicKey({ hash: first, signature: await signer.sign({ hash: first }) }),
    )
    await fc.assert(
      fc.asyncProperty(
        fc.uint8Array({ minLength: 1, maxLength: 64 }),
        fc.uint8Array({ minLength: 1, maxLength: 64 }),
        async (a, b) => {
          const hash = keccak256(a)
          const otherHash = keccak256(b)
          const signature = await signer.sign({ hash })
          expect(verifyKnownSigner(signer.address, hash, signature)).toBe(true)
          if (otherHash !== hash) expect(verifyKnownSigner(signer.address, otherHash, signature)).toBe(false)
          expect(verifyKnownSigner(signer.address, hash, await other.sign({ hash }))).toBe(false)
        },
      ),
      { numRuns: 60 },
    )
  })

  it('refuses r or s out of range, and leaves a malformed signature to recovery', async () => {
    const signer = privateKeyToAccount(generatePrivateKey())
    const hash = keccak256(toHex('range'))
    const signature = await signer.sign({ hash })
    rememberSigner(signer.address, await recoverPublicKey({ hash, signature }))
    const n = secp256k1.CURVE.n.toString(16).padStart(64, '0')
    const zero = '0'.repeat(64)
    expect(verifyKnownSigner(signer.address, hash, `0x${zero}${signature.slice(66)}`)).toBe(false)
    expect(
      verifyKnownSigner(signer.address, hash, `0x${signature.slice(2, 66)}${n}${signature.slice(130)}`),
    ).toBe(false)
    expect(verifyKnownSigner(signer.address, hash, `0x${signature.slice(2, 130)}`)).toBeUndefined()
  })
})
