import { randomUUID } from 'node:crypto'
import { type Address, BaseError, encodeFunctionData, formatUnits, parseUnits } from 'viem'
import { type ExchangeCode, isExchangeCode, shareTicker } from '../../../domain/markets.js'
import { priceDecimals } from '../../../domain/units.js'
import { assetTokenAbi } from '../../contracts/artifacts/index.js'
import type { LocalChain } from '../../localChains.js'
import { findChain, findListing, type Listing, type SandboxContext } from '../context.js'
import { badRequest, httpError, notFound } from '../errors.js'
import {
  applyHoldingAdjustments,
  holdersOf,
  manage,
  managerCall,
  markProcessed,
  releaseLock,
  setProcessedAt,
} from './corporateActionsOnChain.js'
import {
  type CorporateAction,
  type CorporateActionChain,
  type CorporateActionInput,
  type CorporateActionParams,
  type CorporateActionRecord,
  type CorporateActions,
  holdersPerTransaction,
  originalAmountDecimals,
} from './corporateActionTypes.js'
import type { CostEvent } from './holdings.js'
import { onChainActionId } from './ids.js'
import { usdRateOf } from './valuation.js'

// Corporate actions of the sandbox. An operator triggers an action on one token of one chain (a
// sandbox admin endpoint); the service then records one `triggered` record per holder, optionally
// pausing the token on chain, and on processing applies the action ON CHAIN with the
// StockTokenManager (signed by the chain's deployer, which holds the manager's roles), marks the
// records `processed` and unpauses. Makers read their records with
// GET /api/v1/maker/corporate-actions/actions.

export function createCorporateActions(parameters: {
  context: () => SandboxContext
  chainOf: (chainId: number) => CorporateActionChain | undefined
}): CorporateActions {
  const { context, chainOf } = parameters
  const actions = new Map<string, CorporateAction>()
  const allRecords = () => [...actions.values()].flatMap((action) => action.records)
  const now = () => context().clock.now()

  async function trigger(input: CorporateActionInput): Promise<CorporateAction> {
    const ctx = context()
    if (!isExchangeCode(input.exchange)) throw badRequest('exchange: must be 0 (US), 1 (HK) or 3 (KR)')
    const chain = findChain(ctx, input.chain_id)
    const served = chainOf(input.chain_id)
    if (!chain || !served) {
      const known = ctx.chains.map((c) => c.chainId).join(', ')
      throw badRequest(`chain_id: ${input.chain_id} is not served; chains: ${known}`)
    }
    const listing = findListing(ctx, chain.chainId, input.ticker, input.exchange)
    if (!listing) {
      throw notFound(
        `no token ${input.ticker} on exchange ${input.exchange} and chain ${chain.chainId}; list them with GET /api/v1/chains/${chain.chainId}/tokens`,
      )
    }
    if (!listing.isActive) throw badRequest(`${input.ticker} on chain ${chain.chainId} is delisted`)
    const params = paramsOf(input, listing)
    validateAgainstListings(ctx, chain.chainId, listing, params)

    const id = randomUUID()
    const createdAtMs = now()
    const lockTokens = input.lock_tokens ?? false
    const lockHash = lockTokens ? await manage(served, managerCall.pauseToken(listing.address)) : null
    let holders: { address: Address; balance: bigint }[]
    try {
      holders = await holdersOf(served, listing.address)
    } catch (error) {
      if (lockTokens) await releaseLock(served, listing.address).catch(() => undefined)
      throw error
    }

    const action: CorporateAction = {
      id,
      chainId: chain.chainId,
      tokenAddress: listing.address,
      tokenDecimals: listing.decimals,
      tokenTicker: listing.ticker,
      ticker: underlyingTicker(ctx, listing),
      exchange: input.exchange,
      actionType: input.action_type,
      params,
      lockTokens,
      status: 'triggered',
      createdAtMs,
      processedAtMs: null,
      processedHash: null,
      lockHash: lockHash?.transactionHash ?? null,
      remark: null,
      records: [],
      busy: false,
    }
    action.records = holders.map((holder) => newRecord(action, holder.address, holder.balance, chain))
    actions.set(id, action)
    return action
  }

  async function processAction(id: string): Promise<CorporateAction> {
    const action = actions.get(id)
    if (!action) throw notFound(`no corporate action ${id}; list them with GET /sandbox/v1/corporate-actions`)
    if (action.status === 'processed')
      throw httpError(409, 'Already processed', `corporate action ${id} was processed`)
    if (action.busy) throw httpError(409, 'Being processed', `corporate action ${id} is being processed now`)
    const served = chainOf(action.chainId)
    if (!served) throw badRequest(`chain ${action.chainId} is no longer served`)
    action.busy = true
    try {
      await apply(served, action)
      const processedAtMs = now()
      for (const record of action.records) {
        record.status = 'processed'
        record.processedAtMs = processedAtMs
        record.updatedAtMs = processedAtMs
        record.remark = null
      }
      action.status = 'processed'
      action.processedAtMs = processedAtMs
      action.remark = null
      if (action.lockTokens && !stillLocked(action)) await releaseLock(served, action.tokenAddress)
      return action
    } catch (error) {
      const remark = messageOf(error)
      const at = now()
      action.remark = remark
      for (const record of action.records) {
        if (record.status === 'processed') continue
        record.remark = remark
        record.updatedAtMs = at
      }
      throw httpError(500, 'Corporate action failed', `corporate action ${id}: ${remark}`)
    } finally {
      action.busy = false
    }
  }

  async function apply(served: CorporateActionChain, action: CorporateAction) {
    const ctx = context()
    const actionId = onChainActionId(action.id)
    const pending = action.records.filter((record) => record.status === 'triggered')
    const params = action.params
    if (
      params.type === 'stock_split' ||
      params.type === 'reverse_stock_split' ||
      params.type === 'delisting'
    ) {
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

  function stillLocked(action: CorporateAction): boolean {
    return [...actions.values()].some(
      (other) =>
        other !== action &&
        other.status === 'triggered' &&
        other.lockTokens &&
        other.chainId === action.chainId &&
        other.tokenAddress.toLowerCase() === action.tokenAddress.toLowerCase(),
    )
  }

  return {
    trigger,
    process: processAction,
    get: (id) => actions.get(id.toLowerCase()),
    list: () => [...actions.values()].sort((a, b) => b.createdAtMs - a.createdAtMs),
    recordsOf(maker, filter) {
      const who = maker.toLowerCase()
      const token = filter.token?.toLowerCase()
      return allRecords()
        .filter(
          (record) =>
            record.maker.toLowerCase() === who &&
            (filter.chainId === undefined || record.chainId === filter.chainId) &&
            (token === undefined || record.tokenAddress.toLowerCase() === token),
        )
        .sort((a, b) => b.createdAtMs - a.createdAtMs || (a.id < b.id ? -1 : 1))
    },
    lockedQuantity(maker, chainId, token) {
      return allRecords()
        .filter(
          (record) =>
            record.status === 'triggered' &&
            record.isTokenLocked &&
            record.chainId === chainId &&
            record.maker.toLowerCase() === maker.toLowerCase() &&
            record.tokenAddress.toLowerCase() === token.toLowerCase(),
        )
        .reduce((sum, record) => sum + record.holdingQty, 0n)
    },
    costEvents(maker, chainId, token) {
      const events: CostEvent[] = []
      for (const record of allRecords()) {
        if (
          record.status !== 'processed' ||
          record.processedBlock === null ||
          record.chainId !== chainId ||
          record.maker.toLowerCase() !== maker.toLowerCase() ||
          record.tokenAddress.toLowerCase() !== token.toLowerCase()
        ) {
          continue
        }
        const position = { blockNumber: record.processedBlock, logIndex: record.processedLogIndex ?? 0 }
        if (record.params.type === 'stock_split' || record.params.type === 'reverse_stock_split') {
          events.push({
            kind: 'split',
            ...position,
            numerator: BigInt(record.params.numerator),
            denominator: BigInt(record.params.denominator),
          })
        } else if (record.params.type === 'delisting') {
          events.push({ kind: 'delisting', ...position })
        }
      }
      return events
    },
  }
}

function paramsOf(input: CorporateActionInput, listing: Listing): CorporateActionParams {
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
function validateAgainstListings(
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

function newRecord(
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

/** An amount in the market's currency (scaled 1e18) in base units of a USD asset, rounded down. */
function toAssetUnits(amountE18: bigint, exchange: ExchangeCode, assetDecimals: number): bigint {
  return (
    (amountE18 * usdRateOf(exchange) * 10n ** BigInt(assetDecimals)) /
    10n ** BigInt(originalAmountDecimals + priceDecimals)
  )
}

function divideUp(numerator: bigint, denominator: bigint): bigint {
  return (numerator + denominator - 1n) / denominator
}

function listingAt(context: SandboxContext, chainId: number, address: Address): Listing | undefined {
  return context.listings
    .get(chainId)
    ?.find((listing) => listing.address.toLowerCase() === address.toLowerCase())
}

function shareListingsOf(context: SandboxContext, chainId: number, stockToken: Address): Listing[] {
  return (context.listings.get(chainId) ?? []).filter(
    (listing) => listing.kind === 'share' && listing.underlying?.toLowerCase() === stockToken.toLowerCase(),
  )
}

/** The reference's `ticker` of a record is the underlying stock's ticker, also for a ShareToken. */
function underlyingTicker(context: SandboxContext, listing: Listing): string {
  if (listing.kind !== 'share' || !listing.underlying) return listing.ticker
  return listingAt(context, listing.chainId, listing.underlying)?.ticker ?? listing.stock.ticker
}

function chunk<T>(items: readonly T[], size: number): T[][] {
  const chunks: T[][] = []
  for (let index = 0; index < items.length; index += size) chunks.push(items.slice(index, index + size))
  return chunks
}

function messageOf(error: unknown): string {
  if (error instanceof BaseError) return error.shortMessage
  return error instanceof Error ? error.message : String(error)
}
