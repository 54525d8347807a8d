import type { Address, Hex } from 'viem'
import type { SignedQuoteStruct } from '../domain/routerQuote.js'

/** The fields of a router quote (a reply's, or one kept in the ledger) that the operator signs. */
export type SignableQuote = {
  quoteId: Hex
  stockToken: Address
  assetToken: Address
  isBuy: boolean
  amountInUsed: bigint
  amountOut: bigint
  feeAmount: bigint
  expiresAt: number
}

/**
 * The struct a router quote was signed over and is executed with (`execute(quote, signature)`), as
 * the "Signed struct" decision of docs/sandbox.md says: `amountIn = amount_in_used` (what the taker gives:
 * asset fee included on a buy, stock on a sell), `amountOut = amount_out`, `feeAmount`, `expiresAt`.
 * Recover its EIP-712 signer with `routerQuoteTypes` and `routerQuoteDomain` of domain/routerQuote.ts.
 *
 * @example
 * const { quote, signature } = await getRouterQuote(client, parameters)
 * await walletClient.writeContract({
 *   address: chain.executorAddress,
 *   abi: rfqSettlementAbi,
 *   functionName: 'execute',
 *   args: [toSignedQuoteStruct(quote), signature],
 * })
 */
export function toSignedQuoteStruct(quote: SignableQuote): SignedQuoteStruct {
  return {
    quoteId: quote.quoteId,
    stockToken: quote.stockToken,
    assetToken: quote.assetToken,
    isBuy: quote.isBuy,
    amountIn: quote.amountInUsed,
    amountOut: quote.amountOut,
    feeAmount: quote.feeAmount,
    expiresAt: BigInt(quote.expiresAt),
  }
}
