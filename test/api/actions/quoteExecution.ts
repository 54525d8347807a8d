import {
  type GetRouterQuoteParameters,
  type GetRouterQuoteReturnType,
  getRouterQuote,
} from '@stockroute/client/api/actions/getRouterQuote.js'
import type { ServiceClient } from '@stockroute/client/api/createServiceClient.js'
import { toSignedQuoteStruct } from '@stockroute/client/api/quoteStruct.js'
import { rfqSettlementAbi } from '@stockroute/sandbox/contracts/artifacts/index.js'
import type { LocalChain } from '@stockroute/sandbox/localChains.js'
import {
  erc20Abi,
  type Hex,
  type LocalAccount,
  type PublicClient,
  type TransactionReceipt,
  type WalletClient,
} from 'viem'
import { expect } from 'vitest'

// Test fixture of the maker-endpoint tests: a router quote fetched with getRouterQuote over HTTP,
// approved exactly as its required_approvals say and executed on chain through the chain's executor,
// as a taker would. The ledger then reports it as an order, a fill and a position.

export type Taker = { account: LocalAccount; publicClient: PublicClient; walletClient: WalletClient }

export type QuoteExecution = GetRouterQuoteReturnType & { receipt: TransactionReceipt }

/** Fetches a quote on `chain` in its default asset and executes it from `taker`; the receipt must succeed. */
export async function quoteAndExecute(
  client: ServiceClient,
  chain: LocalChain,
  taker: Taker,
  request: Omit<GetRouterQuoteParameters, 'chainId' | 'asset' | 'exchange'> & {
    exchange?: GetRouterQuoteParameters['exchange']
  },
): Promise<QuoteExecution> {
  const result = await getRouterQuote(client, {
    exchange: 0,
    chainId: chain.chainId,
    asset: chain.defaultAsset.address,
    ...request,
  })
  for (const approval of result.requiredApprovals) {
    await confirmed(
      taker,
      await taker.walletClient.writeContract({
        account: taker.account,
        chain: taker.walletClient.chain,
        address: approval.tokenAddress,
        abi: erc20Abi,
        functionName: 'approve',
        args: [approval.spender, approval.amount],
      }),
    )
  }
  const receipt = await confirmed(
    taker,
    await taker.walletClient.writeContract({
      account: taker.account,
      chain: taker.walletClient.chain,
      address: chain.executorAddress,
      abi: rfqSettlementAbi,
      functionName: 'execute',
      args: [toSignedQuoteStruct(result.quote), result.signature],
    }),
  )
  return { ...result, receipt }
}

async function confirmed(taker: Taker, hash: Hex): Promise<TransactionReceipt> {
  const receipt = await taker.publicClient.waitForTransactionReceipt({ hash, pollingInterval: 50 })
  expect(receipt.status).toBe('success')
  return receipt
}
