import type { SignedQuoteStruct } from '../domain/routerQuote.js'
import type { RouterQuote } from './actions/getRouterQuote.js'

/**
 * The struct a router quote was signed over and is executed with (`execute(quote, signature)`), as
 * the README's "Signed struct" decision says: `amountIn = amount_in_used` (what the taker gives:
 * asset fee included on a buy, stock on a sell), `amountOut = amount_out`, `feeAmount`, `expiresAt`.
 * Recover its EIP-712 signer with `routerQuoteTypes` and `routerQuoteDomain` of src/domain/routerQuote.ts.
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
export function toSignedQuoteStruct(quote: RouterQuote): SignedQuoteStruct {
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
