import fc from 'fast-check'
import { bytesToHex, getAddress, type Hex, recoverTypedDataAddress } from 'viem'
import { privateKeyToAccount, signTypedData } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { type RouterQuoteDomain, routerQuoteTypes } from '../../src/domain/routerQuote.js'
import { signRouterQuote } from '../../src/sandbox/signQuote.js'

const address = fc.uint8Array({ minLength: 20, maxLength: 20 }).map((bytes) => getAddress(bytesToHex(bytes)))
const uint256 = fc.bigInt({ min: 0n, max: 2n ** 256n - 1n })
const quote = fc.record({
  quoteId: fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => bytesToHex(bytes)),
  stockToken: address,
  assetToken: address,
  isBuy: fc.boolean(),
  amountIn: uint256,
  amountOut: uint256,
  feeAmount: uint256,
  expiresAt: fc.bigInt({ min: 0n, max: 2n ** 40n }),
})
const domain = fc.record({
  name: fc.constantFrom('PlatformRouter', 'RFQSettlement'),
  version: fc.constant('1'),
  chainId: fc.integer({ min: 1, max: 2 ** 31 }),
  verifyingContract: address,
}) as fc.Arbitrary<RouterQuoteDomain>
// A few keys, as a sandbox has (one operator a chain, and the payer for the wrong-signer fault).
const operatorKey = fc.constantFrom<Hex>(
  '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
  '0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a',
  '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6',
)

describe('signRouterQuote', () => {
  it("signs every quote in every domain with the same bytes as viem's signTypedData", async () => {
    await fc.assert(
      fc.asyncProperty(domain, quote, operatorKey, async (inDomain, signed, key) => {
        const typedData = {
          domain: inDomain,
          types: routerQuoteTypes,
          primaryType: 'Quote',
          message: signed,
        } as const
        const signature = await signRouterQuote({ domain: inDomain, quote: signed, operatorKey: key })
        expect(signature).toBe(await signTypedData({ privateKey: key, ...typedData }))
        expect(await recoverTypedDataAddress({ ...typedData, signature })).toBe(
          privateKeyToAccount(key).address,
        )
      }),
      { numRuns: 60 },
    )
  })
})
