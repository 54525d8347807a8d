import type { Hex } from 'viem'
import { signTypedData } from 'viem/accounts'
import { type RouterQuoteDomain, routerQuoteTypes, type SignedQuoteStruct } from '../domain/routerQuote.js'

/**
 * Signs a router quote as the chain's operator, the way the service does, so that the chain's
 * executor contract accepts it.
 *
 * @example
 * const signature = await signRouterQuote({ domain, quote, operatorKey })
 */
export function signRouterQuote(parameters: {
  domain: RouterQuoteDomain
  quote: SignedQuoteStruct
  operatorKey: Hex
}): Promise<Hex> {
  const { domain, quote, operatorKey } = parameters
  return signTypedData({
    privateKey: operatorKey,
    domain,
    types: routerQuoteTypes,
    primaryType: 'Quote',
    message: quote,
  })
}
