import { hashRouterQuote, RouterQuoteEncodingError } from '@stockroute/client/domain/hashRouterQuote.js'
import { routerQuoteTypes, type SignedQuoteStruct } from '@stockroute/client/domain/routerQuote.js'
import fc from 'fast-check'
import { type Address, bytesToHex, type Hex, hashTypedData, type TypedDataDomain } from 'viem'
import { describe, expect, it } from 'vitest'
import { anyAddress as address, anyRouterQuote as quote } from '../helpers/routerQuoteArbitraries.js'

const viemHash = (domain: TypedDataDomain, quote: SignedQuoteStruct) =>
  hashTypedData({ domain, types: routerQuoteTypes, primaryType: 'Quote', message: quote })

const domain: fc.Arbitrary<TypedDataDomain> = fc.record(
  {
    name: fc.constantFrom('PlatformRouter', 'RFQSettlement', ''),
    version: fc.constantFrom('1', '2'),
    chainId: fc.integer({ min: 1, max: 2 ** 31 }),
    verifyingContract: address,
    salt: fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => bytesToHex(bytes) as Hex),
  },
  { requiredKeys: ['chainId', 'verifyingContract'] },
)

describe('hashRouterQuote', () => {
  it("is viem's hashTypedData of the Quote type, for any quote in any domain", () => {
    fc.assert(
      fc.property(domain, quote, (inDomain, signed) => {
        expect(hashRouterQuote(inDomain, signed)).toBe(viemHash(inDomain, signed))
      }),
      { numRuns: 300 },
    )
  })

  it('keeps one domain apart from another (the separator cache is keyed by every field)', () => {
    const base = { name: 'PlatformRouter', version: '1', chainId: 31337 } as const
    const signed: SignedQuoteStruct = {
      quoteId: `0x${'11'.repeat(32)}`,
      stockToken: '0x1000000000000000000000000000000000000001',
      assetToken: '0x2000000000000000000000000000000000000001',
      isBuy: true,
      amountIn: 300_000_000n,
      amountOut: 1n,
      feeAmount: 900_000n,
      expiresAt: 1_800_000_000n,
    }
    const domains: TypedDataDomain[] = [
      { ...base, verifyingContract: '0x3000000000000000000000000000000000000001' },
      { ...base, verifyingContract: '0x3000000000000000000000000000000000000002' },
      { ...base, chainId: 31338, verifyingContract: '0x3000000000000000000000000000000000000001' },
      { ...base, name: 'RFQSettlement', verifyingContract: '0x3000000000000000000000000000000000000001' },
    ]
    const digests = domains.map((each) => hashRouterQuote(each, signed))
    expect(new Set(digests).size).toBe(domains.length)
    expect(digests).toEqual(domains.map((each) => viemHash(each, signed)))
  })

  it('refuses what the Quote type cannot hold, as viem does', () => {
    const inDomain = { chainId: 1, verifyingContract: '0x3000000000000000000000000000000000000001' } as const
    const good: SignedQuoteStruct = {
      quoteId: `0x${'22'.repeat(32)}`,
      stockToken: '0x1000000000000000000000000000000000000001',
      assetToken: '0x2000000000000000000000000000000000000001',
      isBuy: false,
      amountIn: 1n,
      amountOut: 1n,
      feeAmount: 0n,
      expiresAt: 1n,
    }
    const bad: Partial<SignedQuoteStruct>[] = [
      { quoteId: '0x1234' },
      { stockToken: '0x10000000000000000000000000000000000000' as Address },
      // Mixed case with a wrong checksum.
      { assetToken: '0xAbCd000000000000000000000000000000000001' },
      // All upper case, which viem does not take for a checksum either.
      { stockToken: '0x0289E3060131F80593FB07A7031751D6BDC402DD' },
      { amountIn: -1n },
      { feeAmount: 2n ** 256n },
    ]
    for (const change of bad) {
      const signed = { ...good, ...change }
      expect(() => hashRouterQuote(inDomain, signed)).toThrow(RouterQuoteEncodingError)
      expect(() => viemHash(inDomain, signed)).toThrow()
    }
  })
})
