import type { GetRouterQuoteParameters, RouterQuote } from '@stockroute/client/api/actions/getRouterQuote.js'
import type { CheckedIntent } from './intent.js'
import type { PlanApprovalsParameters } from './planApprovals.js'
import type { ApprovalPolicy } from './settings.js'
import type { ChainRuntime, ChainWallet, Instrument } from './types.js'

/**
 * The router quote request of an intent: in the chain's default asset, its amount as given, the
 * token kind the instrument resolved to.
 *
 * @example
 * await requestRouterQuote(context.service, routerQuoteParametersOf(intent, chain, instrument))
 */
export function routerQuoteParametersOf(
  intent: CheckedIntent,
  chain: ChainRuntime,
  instrument: Instrument,
): GetRouterQuoteParameters {
  return {
    ticker: intent.ticker,
    exchange: intent.exchange,
    isBuy: intent.side === 'buy',
    chainId: intent.chainId,
    asset: chain.asset.address,
    amountIn: intent.amountIn,
    amountType: intent.side === 'buy' ? intent.amountType : undefined,
    tokenKind: instrument.tokenKind,
  }
}

/**
 * What a quote needs approved: the token the taker gives (asset on a buy, stock on a sell), to the
 * pinned executor, `amount_in_used` of it.
 *
 * @example
 * await planApprovals(chain.publicClient, approvalParametersOf(chain, wallet, reply.quote, settings.approvalPolicy))
 */
export function approvalParametersOf(
  chain: ChainRuntime,
  wallet: ChainWallet,
  quote: RouterQuote,
  policy: ApprovalPolicy,
): PlanApprovalsParameters {
  const token = quote.isBuy ? quote.assetToken : quote.stockToken
  return {
    token,
    owner: wallet.account.address,
    spender: chain.executorAddress,
    needed: quote.amountInUsed,
    policy,
    outlook: (onChain) => wallet.transactions.allowanceOutlook(token, chain.executorAddress, onChain),
    resetFirstTokens: chain.resetFirstTokens,
  }
}
