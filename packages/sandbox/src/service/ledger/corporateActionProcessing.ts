import { shareTicker } from '@stockroute/client/domain/markets.js'
import { encodeFunctionData, parseUnits } from 'viem'
import { assetTokenAbi } from '../../contracts/artifacts/index.js'
import type { SandboxContext } from '../contextTypes.js'
import { toAssetUnits } from './corporateActionAmounts.js'
import { listingAt, shareListingsOf } from './corporateActionListings.js'
import {
  applyHoldingAdjustments,
  manage,
  managerCall,
  markProcessed,
  setProcessedAt,
} from './corporateActionsOnChain.js'
import {
  type CorporateAction,
  type CorporateActionChain,
  holdersPerTransaction,
  originalAmountDecimals,
} from './corporateActionTypes.js'
import { onChainActionId } from './ids.js'

// Processing a corporate action ON CHAIN with the StockTokenManager: splits and delistings in
// chunks of holders, a ticker change (the token's ShareTokens' included), a dividend declared and
// paid to each holder in the chain's default asset.

export async function applyCorporateAction(
  served: CorporateActionChain,
  action: CorporateAction,
  context: () => SandboxContext,
  now: () => number,
) {
  const ctx = context()
  const actionId = onChainActionId(action.id)
  const pending = action.records.filter((record) => record.status === 'triggered')
  const params = action.params
  if (params.type === 'stock_split' || params.type === 'reverse_stock_split' || params.type === 'delisting') {
    const chunks = chunk(pending, holdersPerTransaction)
    if (chunks.length === 0) chunks.push([])
    for (const records of chunks) {
      const holders = records.map((record) => record.maker)
      const receipt =
        params.type === 'delisting'
          ? await manage(served, managerCall.delist(actionId, action.tokenAddress, holders))
          : await manage(
              served,
              managerCall.applySplit(
                actionId,
                action.tokenAddress,
                holders,
                BigInt(params.numerator),
                BigInt(params.denominator),
              ),
            )
      applyHoldingAdjustments(receipt, records)
      action.processedHash = receipt.transactionHash
      markProcessed(records, now())
    }
    if (params.type === 'delisting') {
      const listing = listingAt(ctx, action.chainId, action.tokenAddress)
      if (listing) listing.isActive = false
    }
    return
  }
  if (params.type === 'ticker_change') {
    const listing = listingAt(ctx, action.chainId, action.tokenAddress)
    const receipt = await manage(
      served,
      managerCall.changeTicker(actionId, action.tokenAddress, params.new_ticker),
    )
    if (listing) listing.ticker = params.new_ticker
    for (const share of shareListingsOf(ctx, action.chainId, action.tokenAddress)) {
      const newShareTicker = shareTicker(params.new_ticker)
      await manage(served, managerCall.changeTicker(actionId, share.address, newShareTicker))
      share.ticker = newShareTicker
    }
    action.processedHash = receipt.transactionHash
    for (const record of pending) setProcessedAt(record, receipt, 0)
    markProcessed(pending, now())
    return
  }
  // Dividend: declared on chain (an event), then each holder's net amount is paid in the chain's
  // default asset, minted by the deployer who owns it.
  if (params.type !== 'dividend') throw new Error(`unknown corporate action type ${params.type}`)
  const asset = served.chain.defaultAsset
  const perShare = toAssetUnits(
    parseUnits(params.dividend_per_share, originalAmountDecimals),
    action.exchange,
    asset.decimals,
  )
  const declared = await manage(
    served,
    managerCall.declareDividend(actionId, action.tokenAddress, asset.address, perShare),
  )
  action.processedHash = declared.transactionHash
  for (const record of pending) {
    const payout = record.payoutAmount ?? 0n
    const receipt =
      payout > 0n
        ? await served.writer.send(
            asset.address,
            encodeFunctionData({ abi: assetTokenAbi, functionName: 'mint', args: [record.maker, payout] }),
          )
        : declared
    setProcessedAt(record, receipt, 0)
    markProcessed([record], now())
  }
}

function chunk<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = []
  for (let index = 0; index < items.length; index += size) chunks.push(items.slice(index, index + size))
  return chunks
}
