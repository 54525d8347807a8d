import { hashRouterQuote } from '@stockroute/client/domain/hashRouterQuote.js'
import type { RouterQuoteDomain, SignedQuoteStruct } from '@stockroute/client/domain/routerQuote.js'
import { signDigest } from '@stockroute/client/domain/signDigest.js'
import { type Hex, hexToBytes, serializeSignature } from 'viem'

/**
 * Signs a router quote as the chain's operator, the way the service does, so that the chain's
 * executor contract accepts it. The same signature as viem's `signTypedData` (a test holds them
 * equal) in about a third of its time: the sandbox signs every quote on the cores of the engine it
 * serves, hundreds a second in a bench.
 *
 * @example
 * const signature = await signRouterQuote({ domain, quote, operatorKey })
 */
export async function signRouterQuote(parameters: {
  domain: RouterQuoteDomain
  quote: SignedQuoteStruct
  operatorKey: Hex
}): Promise<Hex> {
  const { domain, quote, operatorKey } = parameters
  return serializeSignature(signDigest(hashRouterQuote(domain, quote), hexToBytes(operatorKey)))
}
