// fast-check arbitraries of router quotes, for the tests that hold our EIP-712 digest and signature
// equal to viem's for any quote.

import type { SignedQuoteStruct } from '@stockroute/client/domain/routerQuote.js'
import fc from 'fast-check'
import { type Address, bytesToHex, getAddress } from 'viem'

/** Lower case or checksummed: the two spellings viem accepts. */
export const anyAddress: fc.Arbitrary<Address> = fc
  .uint8Array({ minLength: 20, maxLength: 20 })
  .chain((bytes) => fc.constantFrom<Address>(bytesToHex(bytes), getAddress(bytesToHex(bytes))))

export const anyUint256 = fc.bigInt({ min: 0n, max: 2n ** 256n - 1n })

/** Any quote its EIP-712 type can hold: a 32-byte id, two addresses, a side, four uint256. */
export const anyRouterQuote: fc.Arbitrary<SignedQuoteStruct> = fc.record({
  quoteId: fc.uint8Array({ minLength: 32, maxLength: 32 }).map((bytes) => bytesToHex(bytes)),
  stockToken: anyAddress,
  assetToken: anyAddress,
  isBuy: fc.boolean(),
  amountIn: anyUint256,
  amountOut: anyUint256,
  feeAmount: anyUint256,
  expiresAt: fc.oneof(fc.bigInt({ min: 0n, max: 2n ** 40n }), anyUint256),
})
