import { routerQuoteDomain, type SignedQuoteStruct } from '@stockroute/client/domain/routerQuote.js'
import { type Address, formatUnits, type Hex, parseUnits } from 'viem'
import type { LocalChain } from '../../localChains.js'
import { signRouterQuote } from '../../signQuote.js'
import type { Listing } from '../contextTypes.js'
import { httpError } from '../errors.js'
import type { QuoteFaultName } from '../faultSwitch.js'
import type { QuoteAmounts } from './computeQuoteAmounts.js'

/** A router quote as the request asks for it, ready to be signed. */
export type QuoteToSign = {
  /** Taken from the service's fault switch; `null` (always, unless tests armed one) signs normally. */
  fault: QuoteFaultName | null
  chain: LocalChain
  /** The requested token's listing. */
  listing: Listing
  /** Every listing of the chain: a `wrong-token` quote names another one. */
  listings: readonly Listing[]
  struct: SignedQuoteStruct
  /** The request's input in its token's base units (the reply's `amount_in`). */
  amountIn: bigint
  /** The request's `amount_in`, natural units, as sent. */
  requestedAmountIn: string
  nowMs: number
  /** Computes the amounts for another `amount_in` the way the request's were (`wrong-amount`). */
  requote: (amountIn: string) => Promise<QuoteAmounts>
}

/** What was signed, and what the reply shows: the same struct except for `tampered-amount`. */
export type SignedQuote = {
  signed: SignedQuoteStruct
  signature: Hex
  replied: SignedQuoteStruct
  /** The reply's `amount_in`, base units. */
  amountIn: bigint
  /** The listing whose token the quote names (the requested one except for `wrong-token`). */
  stock: Listing
  /** The spender of the reply's `required_approvals`. */
  spender: Address
}

/**
 * Signs a router quote as the chain's operator, in the chain executor's EIP-712 domain, or, when a
 * TEST-ONLY fault is armed, gets exactly one thing wrong so that a client's guards have something
 * to refuse:
 *
 * - `wrong-signer`: signed by the chain's payer key instead of the operator's.
 * - `tampered-amount`: signed correctly, then the reply's `amount_out` is one base unit more.
 * - `wrong-amount`: computed, signed and replied for twice the requested `amount_in`.
 * - `wrong-token`: signed and replied with another listed token of the chain as `stock_token`.
 * - `wrong-spender`: the approval names the chain's payer, not the executor, as spender.
 * - `expired`: `expires_at` 5 seconds ago, validly signed.
 * - `short-validity`: `expires_at` the current second + 1, validly signed.
 * - `far-expiry`: `expires_at` two hours ahead, validly signed (a quote outside the reference's 10 s).
 * - `wrong-domain`: signed by the operator in the domain of chain id + 1000.
 *
 * @example
 * const { signed, signature, replied, spender } = await signQuoteWithFault({
 *   fault: takeFault(context.faults), chain, listing, listings, struct, amountIn,
 *   requestedAmountIn: '100', nowMs, requote,
 * })
 */
export async function signQuoteWithFault(quote: QuoteToSign): Promise<SignedQuote> {
  const { fault, chain, listing, nowMs } = quote
  const nowSeconds = Math.floor(nowMs / 1000)
  let struct = quote.struct
  let amountIn = quote.amountIn
  let stock = listing
  if (fault === 'wrong-amount') {
    const amounts = await quote.requote(doubled(quote.requestedAmountIn))
    amountIn = amounts.amountIn
    struct = {
      ...struct,
      amountIn: amounts.amountInUsed,
      amountOut: amounts.amountOut,
      feeAmount: amounts.feeAmount,
    }
  } else if (fault === 'wrong-token') {
    stock = otherListing(quote.listings, listing)
    struct = { ...struct, stockToken: stock.address }
  } else if (fault === 'expired') {
    struct = { ...struct, expiresAt: BigInt(nowSeconds - 5) }
  } else if (fault === 'short-validity') {
    struct = { ...struct, expiresAt: BigInt(nowSeconds + 1) }
  } else if (fault === 'far-expiry') {
    struct = { ...struct, expiresAt: BigInt(nowSeconds + 7_200) }
  }

  const domain = routerQuoteDomain(chain)
  const signature = await signRouterQuote({
    domain: fault === 'wrong-domain' ? { ...domain, chainId: chain.chainId + 1000 } : domain,
    quote: struct,
    operatorKey: fault === 'wrong-signer' ? chain.roles.payer.privateKey : chain.roles.operator.privateKey,
  })
  return {
    signed: struct,
    signature,
    replied: fault === 'tampered-amount' ? { ...struct, amountOut: struct.amountOut + 1n } : struct,
    amountIn,
    stock,
    spender: fault === 'wrong-spender' ? chain.payerAddress : chain.executorAddress,
  }
}

/** Twice a non-negative decimal (already validated by the quote's amount rules), exactly. */
function doubled(amount: string): string {
  const decimals = amount.split('.')[1]?.length ?? 0
  return formatUnits(parseUnits(amount, decimals) * 2n, decimals)
}

/** Another token of the chain, of the same kind when there is one, so its amounts still make sense. */
function otherListing(listings: readonly Listing[], listing: Listing): Listing {
  const others = listings.filter((other) => other.address !== listing.address)
  const other = others.find((candidate) => candidate.kind === listing.kind) ?? others[0]
  if (!other) {
    throw httpError(500, 'Internal error', `wrong-token fault: chain ${listing.chainId} lists no other token`)
  }
  return other
}
