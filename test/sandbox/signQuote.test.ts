import { type RouterQuoteDomain, routerQuoteTypes } from '@stockroute/client/domain/routerQuote.js'
import { signRouterQuote } from '@stockroute/sandbox/signQuote.js'
import fc from 'fast-check'
import { type Hex, recoverTypedDataAddress } from 'viem'
import { privateKeyToAccount, signTypedData } from 'viem/accounts'
import { describe, expect, it } from 'vitest'
import { anyAddress as address, anyRouterQuote as quote } from '../helpers/routerQuoteArbitraries.js'

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
