import { randomUUID } from 'node:crypto'
import {
  type Address,
  BaseError,
  encodeFunctionData,
  formatUnits,
  type Hex,
  type PublicClient,
  parseEventLogs,
  parseUnits,
  type TransactionReceipt,
} from 'viem'
import { z } from 'zod'
import { type ExchangeCode, isExchangeCode, shareTicker } from '../../../domain/markets.js'
import { priceDecimals } from '../../../domain/units.js'
import { assetTokenAbi, stockTokenManagerAbi } from '../../contracts/artifacts/index.js'
import type { LocalChain } from '../../localChains.js'
import { findChain, findListing, type Listing, type SandboxContext } from '../context.js'
import { badRequest, httpError, notFound } from '../errors.js'
import type { ChainWriter } from './chainWriter.js'
import { type CostEvent, createBalanceReader, recipientsOf } from './holdings.js'
import { onChainActionId } from './ids.js'
import { usdRateOf } from './valuation.js'

// Corporate actions of the sandbox. An operator triggers an action on one token of one chain (a
// sandbox admin endpoint); the service then records one `triggered` record per holder, optionally
// pausing the token on chain, and on processing applies the action ON CHAIN with the
// StockTokenManager (signed by the chain's deployer, which holds the manager's roles), marks the
// records `processed` and unpauses. Makers read their records with
// GET /api/v1/maker/corporate-actions/actions.

export const corporateActionTypes = [
  'dividend',
  'stock_split',
  'reverse_stock_split',
  'delisting',
  'ticker_change',
] as const
export type CorporateActionType = (typeof corporateActionTypes)[number]

/** Holders per applySplit / delist transaction, to stay far below the block gas limit. */
const holdersPerTransaction = 100
/** Dividend amounts in the original currency are kept exactly at this scale. */
const originalAmountDecimals = 18

const decimalText = (what: string) =>
  z
    .string({ error: `${what}: must be a decimal string such as "0.25"` })
    .regex(/^\d{1,30}(\.\d{1,18})?$/, `${what}: must be a non-negative decimal with at most 18 decimals`)
const ratioPart = z.number().int().min(1).max(1_000_000)
const base = {
  chain_id: z.number().int().min(0),
  ticker: z.string().min(1).max(32),
  exchange: z.number().int(),
  lock_tokens: z.boolean().optional(),
}

/** Body of POST /sandbox/v1/corporate-actions. */
export const corporateActionInput = z.discriminatedUnion('action_type', [
  z.object({
    ...base,
    action_type: z.literal('stock_split'),
    params: z.object({ numerator: ratioPart, denominator: ratioPart }),
  }),
  z.object({
    ...base,
    action_type: z.literal('reverse_stock_split'),
    params: z.object({ numerator: ratioPart, denominator: ratioPart }),
  }),
  z.object({
    ...base,
    action_type: z.literal('delisting'),
    params: z.object({}).optional(),
  }),
  z.object({
    ...base,
    action_type: z.literal('ticker_change'),
    params: z.object({
      new_ticker: z
        .string()
        .regex(/^[A-Za-z0-9][A-Za-z0-9.-]{0,31}$/, 'new_ticker: 1 to 32 letters, digits, "." or "-"'),
    }),
  }),
  z.object({
    ...base,
    action_type: z.literal('dividend'),
    params: z.object({
      type: z.literal('dividend').optional(),
      dividend_per_share: decimalText('dividend_per_share'),
      tax_rate: z.number().int().min(0).max(100),
      fee_amount: decimalText('fee_amount').optional(),
      ex_dividend_date: z.iso.date(),
      dividend_date: z.iso.date(),
      distribution_plan: z.string().min(1).max(64).optional(),
    }),
  }),
])
export type CorporateActionInput = z.output<typeof corporateActionInput>

/** The action's `params` as records show them; `type` always names the action type. */
export type CorporateActionParams =
  | { type: 'stock_split' | 'reverse_stock_split'; numerator: number; denominator: number }
  | { type: 'delisting' }
  | { type: 'ticker_change'; old_ticker: string; new_ticker: string }
  | {
      type: 'dividend'
      dividend_per_share: string
      tax_rate: number
      fee_amount: string
      ex_dividend_date: string
      dividend_date: string
      distribution_plan: string
    }

export type CorporateActionStatus = 'triggered' | 'processed'

/** One holder's record of an action (the reference's Corporate action record). */
export type CorporateActionRecord = {
  id: string
  actionId: string
  maker: Address
  chainId: number
  /** Token base units. */
  holdingQty: bigint
  actionQty: bigint
  /** The fraction of one base unit lost by a split, scaled by 1e18 (as the manager records it). */
  compensationE18: bigint | null
  status: CorporateActionStatus
  isTokenLocked: boolean
  createdAtMs: number
  updatedAtMs: number
  processedHash: Hex | null
  processedAtMs: number | null
  /** Where the action took effect on chain, to order it among the maker's fills. */
  processedBlock: bigint | null
  processedLogIndex: number | null
  remark: string | null
  taxRate: string | null
  originalFeeAmount: string | null
  originalNetAmount: string | null
  originalCompensationAmount: string | null
  /** Dividend paid to the holder in the chain's default asset, base units. */
  payoutAmount: bigint | null
  tokenAddress: Address
  tokenDecimals: number
  actionType: CorporateActionType
  params: CorporateActionParams
  ticker: string
  exchange: ExchangeCode
}

/** The action as the operator triggered it, with one record per holder. */
export type CorporateAction = {
  id: string
  chainId: number
  tokenAddress: Address
  tokenDecimals: number
  /** The token's own ticker at trigger time (records carry the underlying stock's ticker). */
  tokenTicker: string
  ticker: string
  exchange: ExchangeCode
  actionType: CorporateActionType
  params: CorporateActionParams
  lockTokens: boolean
  status: CorporateActionStatus
  createdAtMs: number
  processedAtMs: number | null
  processedHash: Hex | null
  lockHash: Hex | null
  remark: string | null
  records: CorporateActionRecord[]
  busy: boolean
}

export type CorporateActionChain = { chain: LocalChain; client: PublicClient; writer: ChainWriter }

export type CorporateActions = {
  trigger: (input: CorporateActionInput) => Promise<CorporateAction>
  process: (id: string) => Promise<CorporateAction>
  get: (id: string) => CorporateAction | undefined
  list: () => CorporateAction[]
  /** The maker's records, newest first. */
  recordsOf: (maker: string, filter: { chainId?: number; token?: string }) => CorporateActionRecord[]
  /** Token base units locked by triggered actions that paused the token. */
  lockedQuantity: (maker: string, chainId: number, token: string) => bigint
  /** Processed splits and delistings of the maker's holding, for its average price. */
  costEvents: (maker: string, chainId: number, token: string) => CostEvent[]
}

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

/** JSON of a record, every field of the reference's Corporate action record. */
export function corporateActionRecordJson(record: CorporateActionRecord) {
  const quantity = (value: bigint) => formatUnits(value, record.tokenDecimals)
  return {
    id: record.id,
    maker: record.maker,
    chain_id: record.chainId,
    holding_qty: quantity(record.holdingQty),
    action_qty: quantity(record.actionQty),
    compensation_qty:
      record.compensationE18 === null ? null : formatUnits(record.compensationE18, record.tokenDecimals + 18),
    status: record.status,
    is_token_locked: record.isTokenLocked,
    created_at: new Date(record.createdAtMs).toISOString(),
    updated_at: new Date(record.updatedAtMs).toISOString(),
    processed_hash: record.processedHash,
    processed_at: record.processedAtMs === null ? null : new Date(record.processedAtMs).toISOString(),
    remark: record.remark,
    tax_rate: record.taxRate,
    original_fee_amount: record.originalFeeAmount,
    original_net_amount: record.originalNetAmount,
    original_compensation_amount: record.originalCompensationAmount,
    token_address: record.tokenAddress,
    action_type: record.actionType,
    params: record.params,
    ticker: record.ticker,
    exchange: record.exchange,
  }
}

/** JSON of an action for the sandbox admin endpoints: the action and all its holders' records. */
export function corporateActionJson(action: CorporateAction) {
  return {
    id: action.id,
    chain_id: action.chainId,
    token_address: action.tokenAddress,
    token_ticker: action.tokenTicker,
    ticker: action.ticker,
    exchange: action.exchange,
    action_type: action.actionType,
    params: action.params,
    lock_tokens: action.lockTokens,
    lock_hash: action.lockHash,
    status: action.status,
    created_at: new Date(action.createdAtMs).toISOString(),
    processed_at: action.processedAtMs === null ? null : new Date(action.processedAtMs).toISOString(),
    processed_hash: action.processedHash,
    remark: action.remark,
    records: action.records.map(corporateActionRecordJson),
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

/** The holders of record: every recipient of the token still holding some, except the payer (the service's inventory). */
async function holdersOf(served: CorporateActionChain, token: Address) {
  const { client, chain } = served
  const head = await client.getBlockNumber({ cacheTime: 0 })
  const candidates = (await recipientsOf(client, token, head)).filter(
    (address) => address.toLowerCase() !== chain.payerAddress.toLowerCase(),
  )
  const balances = await createBalanceReader(client)(
    head,
    candidates.map((owner) => ({ token, owner })),
  )
  return candidates
    .map((address, index) => ({ address, balance: balances[index] ?? 0n }))
    .filter((holder) => holder.balance > 0n)
}

/** Sends a StockTokenManager call (encoded with `managerCall`) as the chain's deployer. */
function manage(served: CorporateActionChain, data: Hex): Promise<TransactionReceipt> {
  return served.writer.send(served.chain.managerAddress, data)
}

const managerCall = {
  pauseToken: (token: Address) =>
    encodeFunctionData({ abi: stockTokenManagerAbi, functionName: 'pauseToken', args: [token] }),
  unpauseToken: (token: Address) =>
    encodeFunctionData({ abi: stockTokenManagerAbi, functionName: 'unpauseToken', args: [token] }),
  applySplit: (
    actionId: Hex,
    token: Address,
    holders: readonly Address[],
    numerator: bigint,
    denominator: bigint,
  ) =>
    encodeFunctionData({
      abi: stockTokenManagerAbi,
      functionName: 'applySplit',
      args: [actionId, token, holders, numerator, denominator],
    }),
  delist: (actionId: Hex, token: Address, holders: readonly Address[]) =>
    encodeFunctionData({
      abi: stockTokenManagerAbi,
      functionName: 'delist',
      args: [actionId, token, holders],
    }),
  changeTicker: (actionId: Hex, token: Address, newSymbol: string) =>
    encodeFunctionData({
      abi: stockTokenManagerAbi,
      functionName: 'changeTicker',
      args: [actionId, token, newSymbol],
    }),
  declareDividend: (actionId: Hex, token: Address, asset: Address, amountPerShare: bigint) =>
    encodeFunctionData({
      abi: stockTokenManagerAbi,
      functionName: 'declareDividend',
      args: [actionId, token, asset, amountPerShare],
    }),
}

function releaseLock(served: CorporateActionChain, token: Address) {
  return manage(served, managerCall.unpauseToken(token))
}

/** Updates records from the manager's HoldingAdjusted events: the chain's numbers are the truth. */
function applyHoldingAdjustments(receipt: TransactionReceipt, records: readonly CorporateActionRecord[]) {
  const events = parseEventLogs({
    abi: stockTokenManagerAbi,
    logs: receipt.logs,
    eventName: 'HoldingAdjusted',
  })
  for (const record of records) {
    const event = events.find((e) => e.args.holder.toLowerCase() === record.maker.toLowerCase())
    setProcessedAt(record, receipt, event?.logIndex ?? 0)
    if (!event) continue
    record.holdingQty = event.args.balanceBefore
    record.actionQty = event.args.balanceAfter
    if (record.compensationE18 !== null) record.compensationE18 = event.args.compensationE18
  }
}

function setProcessedAt(record: CorporateActionRecord, receipt: TransactionReceipt, logIndex: number) {
  record.processedHash = receipt.transactionHash
  record.processedBlock = receipt.blockNumber
  record.processedLogIndex = logIndex
}

function markProcessed(records: readonly CorporateActionRecord[], atMs: number) {
  for (const record of records) {
    record.status = 'processed'
    record.processedAtMs = atMs
    record.updatedAtMs = atMs
  }
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
