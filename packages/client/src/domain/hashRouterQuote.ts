import {
  type Address,
  domainSeparator,
  type Hex,
  isAddress,
  keccak256,
  type TypedDataDomain,
  toBytes,
} from 'viem'
import { StockrouteError } from './errors.js'
import { keccak256Fast } from './keccak256Fast.js'
import { routerQuoteTypes, type SignedQuoteStruct } from './routerQuote.js'

/** `keccak256("Quote(bytes32 quoteId,address stockToken,…)")`, once: the type has no struct members. */
const quoteTypeHash = keccak256(
  toBytes(`Quote(${routerQuoteTypes.Quote.map((field) => `${field.type} ${field.name}`).join(',')})`),
).slice(2)

/** Domain separators (hex, no 0x) by domain: an engine signs in one or two domains for its whole life. */
const separators = new Map<string, string>()
const separatorsLimit = 64

const maxUint256 = 2n ** 256n - 1n
const zeroWord = '0'.repeat(64)
const oneWord = `${'0'.repeat(63)}1`

/** The router quote's fields are not what its EIP-712 type says (viem's `hashTypedData` throws alike). */
export class RouterQuoteEncodingError extends StockrouteError {
  override name = 'RouterQuoteEncodingError'
  declare readonly code: 'QUOTE_ENCODING_INVALID'
  constructor(shortMessage: string) {
    super({
      code: 'QUOTE_ENCODING_INVALID',
      shortMessage,
      remedy:
        'pass the fields of the router quote reply as they came (toSignedQuoteStruct of reply.quote); a quote that cannot be encoded was not signed by the operator',
    })
  }
}

/**
 * The EIP-712 digest of a router quote in `domain`: the same 32 bytes as viem's
 * `hashTypedData({ domain, types: routerQuoteTypes, primaryType: 'Quote', message })` (a property
 * test holds them equal), in a tenth of its time. viem validates and re-encodes the types and the
 * domain at every call; the quote's type never changes and an engine's domains are few, so both
 * hashes are kept, leaving the struct's nine words and two keccaks per quote. This runs in the
 * guard, between a quote's arrival and its signature, for every execution.
 *
 * Throws {@link RouterQuoteEncodingError} for a field its type cannot hold (a quote id that is not
 * 32 bytes, an invalid address, an amount outside uint256), as viem does.
 *
 * @example
 * const digest = hashRouterQuote(domain, toSignedQuoteStruct(reply.quote))
 */
export function hashRouterQuote(domain: TypedDataDomain, quote: SignedQuoteStruct): Hex {
  if (typeof quote.isBuy !== 'boolean') throw new RouterQuoteEncodingError('isBuy must be a boolean')
  const structHash = keccak256Fast(
    `0x${quoteTypeHash}${bytes32Of(quote.quoteId)}${addressWordOf(quote.stockToken, 'stockToken')}${addressWordOf(quote.assetToken, 'assetToken')}${quote.isBuy ? oneWord : zeroWord}${uint256Of(quote.amountIn, 'amountIn')}${uint256Of(quote.amountOut, 'amountOut')}${uint256Of(quote.feeAmount, 'feeAmount')}${uint256Of(quote.expiresAt, 'expiresAt')}`,
  )
  return keccak256Fast(`0x1901${separatorOf(domain)}${structHash.slice(2)}`)
}

function separatorOf(domain: TypedDataDomain): string {
  const key = JSON.stringify([
    domain.name,
    domain.version,
    domain.chainId === undefined ? undefined : String(domain.chainId),
    domain.verifyingContract,
    domain.salt,
  ])
  const known = separators.get(key)
  if (known) return known
  const separator = domainSeparator({ domain }).slice(2)
  if (separators.size >= separatorsLimit) separators.clear()
  separators.set(key, separator)
  return separator
}

// Each field as its 32-byte ABI word, in hex without 0x.

function bytes32Of(value: Hex): string {
  if (typeof value !== 'string' || !/^0x[0-9a-fA-F]{64}$/.test(value))
    throw new RouterQuoteEncodingError(`quoteId ${String(value)} is not 32 bytes of hex`)
  return value.slice(2)
}

function addressWordOf(value: Address, field: string): string {
  // viem's own check (a mixed-case address must carry a valid checksum), with its cache.
  if (typeof value !== 'string' || !isAddress(value))
    throw new RouterQuoteEncodingError(`${field} ${String(value)} is not an address`)
  return value.slice(2).padStart(64, '0')
}

function uint256Of(value: bigint, field: string): string {
  if (typeof value !== 'bigint' || value < 0n || value > maxUint256)
    throw new RouterQuoteEncodingError(`${field} ${String(value)} is not a uint256`)
  return value.toString(16).padStart(64, '0')
}
