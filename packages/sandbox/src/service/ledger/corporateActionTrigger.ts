import { randomUUID } from 'node:crypto'
import { shareTicker } from '@stockroute/client/domain/markets.js'
import { type Address, formatUnits, parseUnits } from 'viem'
import type { LocalChain } from '../../localChains.js'
import type { Listing, SandboxContext } from '../contextTypes.js'
import { badRequest } from '../errors.js'
import { divideUp, toAssetUnits } from './corporateActionAmounts.js'
import { shareListingsOf } from './corporateActionListings.js'
import {
  type CorporateAction,
  type CorporateActionInput,
  type CorporateActionParams,
  type CorporateActionRecord,
  originalAmountDecimals,
} from './corporateActionTypes.js'

// What triggering a corporate action records: its params checked against the listings, and one
// `triggered` record per holder with the expected outcome.

export function paramsOf(input: CorporateActionInput, listing: Listing): CorporateActionParams {
  switch (input.action_type) {
    case 'stock_split':
    case 'reverse_stock_split': {
      const { numerator, denominator } = input.params
      if (input.action_type === 'stock_split' && numerator <= denominator) {
        throw badRequest('params: a stock_split needs numerator > denominator (e.g. 2 for 1: 2/1)')
      }
      if (input.action_type === 'reverse_stock_split' && numerator >= denominator) {
        throw badRequest('params: a reverse_stock_split needs numerator < denominator (e.g. 1 for 10: 1/10)')
      }
      return { type: input.action_type, numerator, denominator }
    }
    case 'delisting':
      return { type: 'delisting' }
    case 'ticker_change':
      return { type: 'ticker_change', old_ticker: listing.ticker, new_ticker: input.params.new_ticker }
    case 'dividend': {
      const p = input.params
      if (p.ex_dividend_date > p.dividend_date) {
        throw badRequest('params: ex_dividend_date must not be after dividend_date')
      }
      return {
        type: 'dividend',
        dividend_per_share: formatUnits(
          parseUnits(p.dividend_per_share, originalAmountDecimals),
          originalAmountDecimals,
        ),
        tax_rate: p.tax_rate,
        fee_amount: formatUnits(
          parseUnits(p.fee_amount ?? '0', originalAmountDecimals),
          originalAmountDecimals,
        ),
        ex_dividend_date: p.ex_dividend_date,
        dividend_date: p.dividend_date,
        distribution_plan: p.distribution_plan ?? 'cash',
      }
    }
  }
}

/** A new ticker must not already name another token of the chain (its ShareToken's ticker included). */
export function validateAgainstListings(
  context: SandboxContext,
  chainId: number,
  listing: Listing,
  params: CorporateActionParams,
) {
  if (params.type !== 'ticker_change') return
  if (params.new_ticker === listing.ticker) throw badRequest('params.new_ticker: equals the current ticker')
  const taken = new Set(
    (context.listings.get(chainId) ?? [])
      .filter((other) => other.exchange === listing.exchange && other.address !== listing.address)
      .map((other) => other.ticker),
  )
  const wanted = [params.new_ticker]
  if (shareListingsOf(context, chainId, listing.address).length > 0)
    wanted.push(shareTicker(params.new_ticker))
  const clash = wanted.find((ticker) => taken.has(ticker))
  if (clash) throw badRequest(`params.new_ticker: ${clash} already names a token on chain ${chainId}`)
}

export function newRecord(
  action: CorporateAction,
  maker: Address,
  holding: bigint,
  chain: LocalChain,
): CorporateActionRecord {
  const record: CorporateActionRecord = {
    id: randomUUID(),
    actionId: action.id,
    maker,
    chainId: action.chainId,
    holdingQty: holding,
    actionQty: holding,
    compensationE18: null,
    status: 'triggered',
    isTokenLocked: action.lockTokens,
    createdAtMs: action.createdAtMs,
    updatedAtMs: action.createdAtMs,
    processedHash: null,
    processedAtMs: null,
    processedBlock: null,
    processedLogIndex: null,
    remark: null,
    taxRate: null,
    originalFeeAmount: null,
    originalNetAmount: null,
    originalCompensationAmount: null,
    payoutAmount: null,
    tokenAddress: action.tokenAddress,
    tokenDecimals: action.tokenDecimals,
    actionType: action.actionType,
    params: action.params,
    ticker: action.ticker,
    exchange: action.exchange,
  }
  const params = action.params
  if (params.type === 'stock_split' || params.type === 'reverse_stock_split') {
    // Expected outcome at trigger time; replaced by the manager's own numbers when processed.
    const scaled = holding * BigInt(params.numerator)
    const denominator = BigInt(params.denominator)
    record.actionQty = scaled / denominator
    record.compensationE18 = ((scaled % denominator) * 10n ** 18n) / denominator
  } else if (params.type === 'delisting') {
    record.actionQty = 0n
  } else if (params.type === 'dividend') {
    const perShare = parseUnits(params.dividend_per_share, originalAmountDecimals)
    const fee = parseUnits(params.fee_amount, originalAmountDecimals)
    const gross = (holding * perShare) / 10n ** BigInt(action.tokenDecimals)
    const tax = divideUp(gross * BigInt(params.tax_rate), 100n)
    const net = gross > tax + fee ? gross - tax - fee : 0n
    record.taxRate = String(params.tax_rate)
    record.originalFeeAmount = params.fee_amount
    record.originalNetAmount = formatUnits(net, originalAmountDecimals)
    record.payoutAmount = toAssetUnits(net, action.exchange, chain.defaultAsset.decimals)
  }
  return record
}
